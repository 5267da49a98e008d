//! Errors before the engine runs, classified the way `tmemu run` maps them to exit codes.

use std::fmt;

/// Why a launch could not be prepared: the class decides the exit code, the message is
/// complete (`file:line:col: error: ...`) and printed as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    pub class: ErrorClass,
    pub message: String,
}

/// Exit-code classes of `tmemu run` (see crates/cli/src/run_cmd.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// Unreadable or malformed input (spec, PTX, overrides): exit code 2.
    BadInput,
    /// Well-formed input using a form tmemu does not model: exit code 4 (`incomplete`).
    Unsupported,
}

impl HostError {
    pub(crate) fn bad(message: String) -> Self {
        HostError {
            class: ErrorClass::BadInput,
            message,
        }
    }

    /// The process exit code of this class: 2 bad input, 4 unsupported.
    pub fn exit_code(&self) -> u8 {
        match self.class {
            ErrorClass::BadInput => 2,
            ErrorClass::Unsupported => 4,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}
