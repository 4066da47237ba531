//! The `referee` binary: everything it does is the library's `cli_main`, so the command line and
//! the library's API are one program.

fn main() -> std::process::ExitCode {
    aluette_referee::cli_main()
}
