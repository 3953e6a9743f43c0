//! The run table: one `Run` per run id (absent id = the default run), bounded by `maxRuns` with
//! least-recently-used eviction, so a gateway with endless short runs keeps flat memory.

use crate::history::Run;
use std::collections::{BTreeMap, HashMap};

type RunKey = Option<Box<str>>;

struct Slot {
    run: Run,
    last_used: u64,
}

pub struct RunTable {
    slots: HashMap<RunKey, Slot>,
    by_age: BTreeMap<u64, RunKey>,
    clock: u64,
    max_runs: usize,
    evicted: u64,
}

impl RunTable {
    pub fn new(max_runs: u32) -> Self {
        RunTable {
            slots: HashMap::new(),
            by_age: BTreeMap::new(),
            clock: 0,
            max_runs: (max_runs as usize).max(1),
            evicted: 0,
        }
    }

    /// The run, if it exists, without marking it as used.
    pub fn peek(&self, run_id: Option<&str>) -> Option<&Run> {
        let key: RunKey = run_id.map(Box::from);
        self.slots.get(&key).map(|slot| &slot.run)
    }

    /// The run, if it exists; marks it as recently used.
    pub fn get_mut(&mut self, run_id: Option<&str>) -> Option<&mut Run> {
        let key: RunKey = run_id.map(Box::from);
        let slot = self.slots.get_mut(&key)?;
        self.clock += 1;
        self.by_age.remove(&slot.last_used);
        slot.last_used = self.clock;
        self.by_age.insert(self.clock, key);
        Some(&mut slot.run)
    }

    /// The run, created (evicting the least recently used one when full) if needed.
    pub fn get_or_create(&mut self, run_id: Option<&str>) -> &mut Run {
        let key: RunKey = run_id.map(Box::from);
        if !self.slots.contains_key(&key) {
            while self.slots.len() >= self.max_runs {
                let Some((_, oldest)) = self.by_age.pop_first() else {
                    break;
                };
                self.slots.remove(&oldest);
                self.evicted += 1;
            }
        }
        self.clock += 1;
        let clock = self.clock;
        let slot = self.slots.entry(key.clone()).or_insert_with(|| Slot {
            run: Run::default(),
            last_used: clock,
        });
        if slot.last_used != clock {
            self.by_age.remove(&slot.last_used);
            slot.last_used = clock;
        }
        self.by_age.insert(clock, key);
        &mut slot.run
    }

    pub fn remove(&mut self, run_id: Option<&str>) {
        let key: RunKey = run_id.map(Box::from);
        if let Some(slot) = self.slots.remove(&key) {
            self.by_age.remove(&slot.last_used);
        }
    }

    pub fn live_runs(&self) -> usize {
        self.slots.len()
    }

    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}
