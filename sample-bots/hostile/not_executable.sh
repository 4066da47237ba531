# Attack: a bot "program" without execute permission (this file is kept mode 644; the test also
# copies it and clears the bits). The referee cannot start it: fault no_start, penalty replaced,
# the fallback plays the whole game. Were it ever run, it would leave its pid in PIDFILE.
echo $$ >> "$1"
exit 0
