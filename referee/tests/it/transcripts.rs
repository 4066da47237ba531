//! The spec's golden transcripts (`spec/transcripts/`) are what the referee says today: each is
//! recorded again, by the command its README gives, and must come out byte for byte the same.
//! A change of the protocol's examples then shows as a failing test, not as a spec that quietly
//! went stale; `UPDATE_TRANSCRIPTS=1` writes them anew (read the diff before committing it).

use crate::harness::{Scratch, referee, root, rust_bot_path, s, text};
use std::path::Path;

/// The words of a command line written in the README: blanks separate words, except inside
/// double quotes, which are dropped.
fn split(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => words.extend((!word.is_empty()).then(|| std::mem::take(&mut word))),
            c => word.push(c),
        }
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

#[test]
fn the_spec_transcripts_are_what_the_referee_says_today() {
    let dir = root().join("spec/transcripts");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("the transcripts' README");
    let sc = Scratch::new("again");
    let bot = rust_bot_path().display().to_string();
    // Each command is a line's first `...` span that starts with the referee.
    let commands: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("`target/debug/referee "))
        .filter_map(|l| l.split('`').next())
        .collect();
    let mut recorded = Vec::new();
    for command in &commands {
        let line = command.replace("spec/transcripts/", &format!("{}/", s(sc.path())));
        let words: Vec<String> =
            split(&line).into_iter().map(|w| w.replace("target/debug/aluette-bot", &bot)).collect();
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        let out = referee(&args);
        assert!(out.status.success(), "{command}: {}", text(&out.stderr));
        let name = words
            .iter()
            .flat_map(|w| w.split(' '))
            .find_map(|w| w.strip_prefix(&format!("{}/", s(sc.path()))))
            .unwrap_or_else(|| panic!("no transcript named in {command}"))
            .to_string();
        recorded.push(name);
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    committed.sort();
    let mut named = recorded.clone();
    named.sort();
    assert_eq!(named, committed, "each transcript has its command in the README, and only those");
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some();
    for name in &recorded {
        let again = std::fs::read_to_string(sc.join(name)).expect("the transcript recorded again");
        let path = dir.join(name);
        if update {
            std::fs::write(&path, &again).expect("write the transcript");
            continue;
        }
        let kept = std::fs::read_to_string(&path).expect("the committed transcript");
        assert!(
            kept == again,
            "{} is no longer what the referee says: run UPDATE_TRANSCRIPTS=1 cargo test -p \
             aluette-referee --test it transcripts:: and read the diff; first difference at line {}",
            Path::new("spec/transcripts").join(name).display(),
            kept.lines().zip(again.lines()).take_while(|(a, b)| a == b).count() + 1
        );
    }
}
