//! The command line before clap sees it: a bare `-p`/`--password` means "prompt", as in the
//! mysql client, even when another word follows — before or after the subcommand.

use std::ffi::OsString;

/// Hidden flag that a bare `-p`/`--password` becomes before clap sees the arguments.
pub(super) const PROMPT_FLAG: &str = "--password-prompt";
pub(super) const PROMPT_LONG: &str = "password-prompt";

/// Rewrites a bare `-p`/`--password` into the hidden prompt flag, before or after the
/// subcommand, so clap never takes the next word for the password. Values of other flags,
/// positional words and everything after `--` are left alone.
/// `cmd` is the whole command line's clap definition (passed in: `args` builds on this file).
pub fn rewrite_password_args(mut cmd: clap::Command, args: Vec<OsString>) -> Vec<OsString> {
    cmd.build();
    let mut takes_value = value_flags(&cmd);

    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter();
    if let Some(program) = iter.next() {
        out.push(program);
    }
    let mut current = Some(&cmd);
    while let Some(arg) = iter.next() {
        let text = arg.to_str().map(str::to_owned);
        match text.as_deref() {
            Some("-p") | Some("--password") => out.push(OsString::from(PROMPT_FLAG)),
            Some("--") => {
                out.push(arg);
                out.extend(iter);
                break;
            }
            Some(flag) if takes_value.iter().any(|f| f == flag) => {
                out.push(arg);
                if let Some(value) = iter.next() {
                    out.push(value);
                }
            }
            _ if arg.as_encoded_bytes().starts_with(b"-") => out.push(arg),
            Some(word) => {
                // A subcommand brings its own flags (the global ones included); any other
                // word is a positional argument.
                if let Some(sub) = current.and_then(|c| c.find_subcommand(word)) {
                    takes_value = value_flags(sub);
                    current = Some(sub);
                }
                out.push(arg);
            }
            None => out.push(arg),
        }
    }
    out
}

/// The spellings (`-h`, `--host`) of `cmd`'s flags that take a value.
fn value_flags(cmd: &clap::Command) -> Vec<String> {
    cmd.get_arguments()
        .filter(|a| a.get_action().takes_values() && !a.is_positional())
        .flat_map(|a| {
            let short = a.get_short().map(|c| format!("-{c}"));
            let long = a.get_long().map(|l| format!("--{l}"));
            short.into_iter().chain(long)
        })
        .collect()
}
