//! The run table: one run's state per run id (absent id = the default run), bounded by `maxRuns`
//! with least-recently-used eviction, so a gateway with endless short runs keeps flat memory. Both
//! engines keep their runs in one (`Run` for the guard's own detectors, the `openclaw` engine's
//! run state for its own), so `maxRuns` and the evicted-runs counter mean one thing.
//!
//! Runs live in a slab; a doubly linked list through the slab orders them by last use, so marking
//! a run as used and evicting the oldest are O(1) without any allocation. Ids are looked up as
//! `&str` (no key is built per call).

use crate::error::GuardError;
use crate::json::window_hash::{self, WindowHash};
use crate::record::keys::WordMix;
use crate::run::state::Run;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Run ids are chosen by the host, not by the model, so the table uses a fast word-at-a-time hash
/// instead of SipHash, which costs far more per lookup in wasm.
#[derive(Default)]
struct IdHasher(WordMix);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.add_bytes(bytes);
    }

    fn write_u8(&mut self, byte: u8) {
        self.0.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// No slot (list ends).
const NIL: u32 = u32::MAX;

struct Slot<R> {
    /// `None` for the default run.
    id: Option<Box<str>>,
    run: R,
    /// Neighbours in the use order: `prev` was used more recently, `next` less recently.
    prev: u32,
    next: u32,
}

pub struct RunTable<R = Run> {
    ids: HashMap<Box<str>, u32, BuildHasherDefault<IdHasher>>,
    default: Option<u32>,
    slots: Vec<Slot<R>>,
    /// Slots of removed runs, reused first.
    free: Vec<u32>,
    /// Most and least recently used.
    newest: u32,
    oldest: u32,
    live: usize,
    max_runs: usize,
    evicted: u64,
    scratch: R,
    /// Imported runs whose window digests with another hash than their id's own
    /// (`window_hash::derived`): a run moved from another instance, or from a snapshot of an
    /// earlier version. By slot, sorted; empty for runs this instance started.
    foreign: ForeignHashes,
}

impl<R: Default> RunTable<R> {
    pub fn new(max_runs: u32) -> Self {
        RunTable {
            ids: HashMap::default(),
            default: None,
            slots: Vec::new(),
            free: Vec::new(),
            newest: NIL,
            oldest: NIL,
            live: 0,
            max_runs: (max_runs as usize).max(1),
            evicted: 0,
            scratch: R::default(),
            foreign: ForeignHashes::default(),
        }
    }

    /// The slot of the run. The most recently used run is tried first: a call's check and record
    /// nearly always hit it, and comparing one id is cheaper than hashing it.
    fn find(&self, run_id: Option<&str>) -> Option<u32> {
        if self
            .slot(self.newest)
            .is_some_and(|slot| slot.id.as_deref() == run_id)
        {
            return Some(self.newest);
        }
        match run_id {
            None => self.default,
            Some(id) => self.ids.get(id).copied(),
        }
    }

    fn slot(&self, index: u32) -> Option<&Slot<R>> {
        self.slots.get(index as usize)
    }

    fn slot_mut(&mut self, index: u32) -> Option<&mut Slot<R>> {
        self.slots.get_mut(index as usize)
    }

    /// Takes a slot out of the use order.
    fn unlink(&mut self, index: u32) {
        let Some((prev, next)) = self.slot(index).map(|s| (s.prev, s.next)) else {
            return;
        };
        match self.slot_mut(prev) {
            Some(p) => p.next = next,
            None => self.newest = next,
        }
        match self.slot_mut(next) {
            Some(n) => n.prev = prev,
            None => self.oldest = prev,
        }
    }

    /// Puts a slot first in the use order.
    fn link_newest(&mut self, index: u32) {
        let old_newest = self.newest;
        if let Some(slot) = self.slot_mut(index) {
            slot.prev = NIL;
            slot.next = old_newest;
        }
        match self.slot_mut(old_newest) {
            Some(n) => n.prev = index,
            None => self.oldest = index,
        }
        self.newest = index;
    }

    fn touch(&mut self, index: u32) {
        if self.newest != index {
            self.unlink(index);
            self.link_newest(index);
        }
    }

    /// The run, if it exists, without marking it as used.
    pub fn peek(&self, run_id: Option<&str>) -> Option<&R> {
        self.find(run_id)
            .and_then(|i| self.slot(i))
            .map(|slot| &slot.run)
    }

    /// The run, if it exists; marks it as recently used.
    pub fn get_mut(&mut self, run_id: Option<&str>) -> Option<&mut R> {
        let index = self.find(run_id)?;
        self.touch(index);
        self.slot_mut(index).map(|slot| &mut slot.run)
    }

    /// The run, created (evicting the least recently used one when full) if needed.
    pub fn get_or_create(&mut self, run_id: Option<&str>) -> &mut R {
        let index = self.slot_of_or_create(run_id);
        match self.slots.get_mut(index as usize) {
            Some(slot) => &mut slot.run,
            // Unreachable (`index` names a live slot); a scratch run instead of a panic path.
            None => &mut self.scratch,
        }
    }

    /// What the run's window digests with: its own keyed hash unless it was imported with another.
    pub fn window_hash(&self, run_id: Option<&str>) -> WindowHash {
        let slot = match self.foreign.0.is_empty() {
            true => None,
            false => self.find(run_id),
        };
        self.foreign.hash_of(slot, run_id)
    }

    /// The slot of the run, created (evicting the least recently used one when full) if needed.
    fn slot_of_or_create(&mut self, run_id: Option<&str>) -> u32 {
        match self.find(run_id) {
            Some(index) => {
                self.touch(index);
                index
            }
            None => {
                while self.live >= self.max_runs && self.oldest != NIL {
                    self.remove_slot(self.oldest);
                    self.evicted += 1;
                }
                self.insert(run_id)
            }
        }
    }

    fn insert(&mut self, run_id: Option<&str>) -> u32 {
        let slot = Slot {
            id: run_id.map(Box::from),
            run: R::default(),
            prev: NIL,
            next: NIL,
        };
        let index = match self.free.pop() {
            Some(index) => {
                if let Some(free) = self.slot_mut(index) {
                    *free = slot;
                }
                index
            }
            None => {
                self.slots.push(slot);
                u32::try_from(self.slots.len() - 1).unwrap_or(NIL)
            }
        };
        match run_id {
            None => self.default = Some(index),
            Some(id) => {
                self.ids.insert(Box::from(id), index);
            }
        }
        self.live += 1;
        self.link_newest(index);
        index
    }

    fn remove_slot(&mut self, index: u32) {
        self.unlink(index);
        let Some(slot) = self.slot_mut(index) else {
            return;
        };
        let id = slot.id.take();
        slot.run = R::default();
        slot.prev = NIL;
        slot.next = NIL;
        match id {
            None => self.default = None,
            Some(id) => {
                self.ids.remove(&id);
            }
        }
        self.foreign.set(index, None);
        self.free.push(index);
        self.live -= 1;
    }

    pub fn remove(&mut self, run_id: Option<&str>) {
        if let Some(index) = self.find(run_id) {
            self.remove_slot(index);
        }
    }

    pub fn live_runs(&self) -> usize {
        self.live
    }

    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

/// The window hashes of imported runs that are not their ids' own, by slot (sorted). Not generic
/// over the run type, so both engines' tables share one copy of the code.
#[derive(Default)]
struct ForeignHashes(Vec<(u32, WindowHash)>);

impl ForeignHashes {
    /// The hash of the run in `slot`: the one imported with it, else its id's own.
    #[inline(never)]
    fn hash_of(&self, slot: Option<u32>, run_id: Option<&str>) -> WindowHash {
        let imported = slot.and_then(|slot| {
            let at = self.0.binary_search_by_key(&slot, |entry| entry.0).ok()?;
            self.0.get(at).map(|entry| entry.1)
        });
        imported.unwrap_or_else(|| window_hash::derived(run_id))
    }

    /// Keeps `hash` for the run in `slot` (`None`: its id's own).
    #[inline(never)]
    fn set(&mut self, slot: u32, hash: Option<WindowHash>) {
        match (self.0.binary_search_by_key(&slot, |entry| entry.0), hash) {
            (Ok(at), Some(hash)) => {
                if let Some(entry) = self.0.get_mut(at) {
                    entry.1 = hash;
                }
            }
            (Ok(at), None) => {
                self.0.remove(at);
            }
            (Err(at), Some(hash)) => self.0.insert(at, (slot, hash)),
            (Err(_), None) => {}
        }
    }
}

/// A run's state as a `RunTable` exports and imports it: each engine's run type has its own bytes
/// (docs/snapshot-format.md).
pub trait RunSnapshot: Default {
    /// The snapshot of `run`, named `run_id`, whose window digests with `hash`.
    fn encode(run_id: Option<&str>, run: &Self, hash: WindowHash) -> Vec<u8>;
    /// The run id, the run and its window's hash a snapshot holds, or `invalid_snapshot`.
    fn decode(bytes: &[u8]) -> Result<(Option<String>, Self, WindowHash), GuardError>;
    /// Cuts the run's window to its newest `history_size` records.
    fn cut_window(&mut self, history_size: usize);
}

impl<R: RunSnapshot> RunTable<R> {
    /// A snapshot of one run (an unknown run gives the snapshot of an empty run).
    pub fn export(&self, run_id: Option<&str>) -> Vec<u8> {
        let hash = self.window_hash(run_id);
        match self.peek(run_id) {
            Some(run) => R::encode(run_id, run, hash),
            None => R::encode(run_id, &R::default(), hash),
        }
    }

    /// Restores a run from `export`'s bytes (replacing any run with that id), its window cut to
    /// `history_size`; returns its id.
    pub fn import(
        &mut self,
        bytes: &[u8],
        history_size: usize,
    ) -> Result<Option<String>, GuardError> {
        let (run_id, mut run, hash) = R::decode(bytes)?;
        run.cut_window(history_size);
        let index = self.slot_of_or_create(run_id.as_deref());
        if let Some(slot) = self.slot_mut(index) {
            slot.run = run;
        }
        let own = hash == window_hash::derived(run_id.as_deref());
        self.foreign.set(index, (!own).then_some(hash));
        Ok(run_id)
    }

    /// The live runs and the runs evicted so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.live_runs() as u64, self.evicted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used_run() {
        let mut table: RunTable = RunTable::new(3);
        for id in ["a", "b", "c"] {
            table.get_or_create(Some(id));
        }
        table.get_mut(Some("a"));
        table.get_or_create(None);
        assert!(table.peek(Some("b")).is_none(), "b was the oldest");
        table.remove(Some("c"));
        table.get_or_create(Some("d"));
        assert_eq!(table.live_runs(), 3);
        table.get_or_create(Some("e"));
        assert!(
            table.peek(Some("a")).is_none(),
            "a was the oldest after c's removal"
        );
        assert!(table.peek(None).is_some() && table.peek(Some("d")).is_some());
        assert_eq!(table.evicted(), 2);
    }
}
