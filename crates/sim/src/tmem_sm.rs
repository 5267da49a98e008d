//! Per-SM-group state of the tensor-core side: Tensor Memory of each SM of the group, the
//! queue of pending asynchronous tcgen05 operations, and the identities handed to observers.

use crate::observer::{AsyncId, CommitId};

/// State shared by every cluster resident in one SM group (one per `run_group`).
#[derive(Debug, Default)]
pub struct TcState {
    next_async: u64,
    next_commit: u64,
}

impl TcState {
    pub fn new() -> TcState {
        TcState::default()
    }

    /// A fresh identity for an asynchronous operation (unique in the group).
    pub fn async_id(&mut self) -> AsyncId {
        self.next_async += 1;
        AsyncId(self.next_async)
    }

    /// A fresh identity for a `tcgen05.commit`.
    pub fn commit_id(&mut self) -> CommitId {
        self.next_commit += 1;
        CommitId(self.next_commit)
    }
}
