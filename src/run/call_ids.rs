//! The call ids of a run's completed records, kept only when the host asked for `sameAs`
//! (config `sameAs: true`): a record whose result repeats an earlier result of the same call still
//! in the window then names that call, so the host can drop the repeat from the model's context.
//! Call ids are the host's identifiers (verdicts echo them), never content; they leave with their
//! records.

/// A kept call id: the history position of its record, and the id.
type KeptId = (u64, Box<str>);

/// Call ids by history position, oldest first. Boxed: a run without any pays one pointer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallIds {
    // A thin pointer (8 bytes), not a `Vec` (24): 100,000 idle runs must fit in 128 MB.
    #[allow(clippy::box_collection)]
    ids: Option<Box<Vec<KeptId>>>,
}

/// Ids longer than this are not kept (a host's call ids are short).
pub const MAX_CALL_ID_BYTES: usize = 256;

impl CallIds {
    /// Keeps the call id of the record at history position `seq` (entries arrive in order).
    pub fn keep(&mut self, seq: u64, id: &str) {
        if id.len() <= MAX_CALL_ID_BYTES {
            self.ids
                .get_or_insert_with(Box::default)
                .push((seq, id.into()));
        }
    }

    /// The call id of the record at `seq`, if kept.
    pub fn of(&self, seq: u64) -> Option<&str> {
        self.entries()
            .iter()
            .find(|(at, _)| *at == seq)
            .map(|(_, id)| &**id)
    }

    /// Forgets the ids of records before history position `first_seq`.
    pub fn drop_before(&mut self, first_seq: u64) {
        if let Some(ids) = &mut self.ids {
            ids.retain(|(seq, _)| *seq >= first_seq);
            if ids.is_empty() {
                self.ids = None;
            }
        }
    }

    /// Forgets the id of the record at `seq`, withdrawn from the window, and moves those of the
    /// records after it one position back.
    pub fn withdraw(&mut self, seq: u64) {
        if let Some(ids) = &mut self.ids {
            ids.retain(|(at, _)| *at != seq);
            for (at, _) in ids.iter_mut().filter(|(at, _)| *at > seq) {
                *at -= 1;
            }
        }
    }

    /// Restores one id of a snapshot (oldest first).
    pub fn restore(&mut self, seq: u64, id: String) {
        self.ids
            .get_or_insert_with(Box::default)
            .push((seq, id.into_boxed_str()));
    }

    /// Every id, oldest first (for snapshots).
    pub fn entries(&self) -> &[KeptId] {
        self.ids.as_deref().map_or(&[], Vec::as_slice)
    }
}
