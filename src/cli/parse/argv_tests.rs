//! `preprocess_password_args` on the real command line definition.
use super::*;
use crate::cli::argv::PROMPT_FLAG;

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn preprocessing_rewrites_only_bare_password_flags() {
    assert_eq!(
        preprocess_password_args(os(&["innodebt", "-p", "-u", "-p", "--password", "x"])),
        os(&["innodebt", PROMPT_FLAG, "-u", "-p", PROMPT_FLAG, "x"])
    );
    assert_eq!(
        preprocess_password_args(os(&[
            "innodebt",
            "-psecret",
            "--password=s",
            "replay",
            "-p"
        ])),
        os(&[
            "innodebt",
            "-psecret",
            "--password=s",
            "replay",
            PROMPT_FLAG
        ])
    );
    // After the subcommand too; its own flags' values are left alone.
    assert_eq!(
        preprocess_password_args(os(&[
            "innodebt",
            "serve",
            "--listen",
            "-p",
            "-u",
            "m",
            "-p",
            "--record-dir",
            "d"
        ])),
        os(&[
            "innodebt",
            "serve",
            "--listen",
            "-p",
            "-u",
            "m",
            PROMPT_FLAG,
            "--record-dir",
            "d"
        ])
    );
    assert_eq!(
        preprocess_password_args(os(&["innodebt", "--", "-p"])),
        os(&["innodebt", "--", "-p"])
    );
}
