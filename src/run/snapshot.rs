//! Versioned, checksummed binary snapshots of one run's state, so a run can move between isolates,
//! processes or runtimes (e.g. a Worker persisting it in a Durable Object). A snapshot holds only
//! what the run holds: digests, counters, tool names and times, never raw arguments or results.
//!
//! Layout (little-endian): magic `TLGS`, version byte, run id, run counters, tool table, cap log,
//! compaction watch, records (64-bit fingerprints, the window's newest record at `next_seq - 1`),
//! then SHA-256 of everything before it. Version 2 snapshots (128-bit fingerprints) still import:
//! their fingerprints are cut to the first 64 bits, which is what this build computes. (Their
//! pending records' argument-text keys were FNV-1a hashes: they no longer match, so an outcome
//! without a call id finds such a pending call by its fingerprint instead.)

use crate::error::{ErrorCode, GuardError};
use crate::json::digest::sha256;
use crate::run::history::{
    detector_code, detector_from_code, kind_code, kind_from_code, CallRecord, CompactionWatch,
    Fingerprint, RecordState, Run, MAX_TOOLS,
};
use crate::run::snapshot_bytes::{Reader, Writer};
use crate::run::tool_table::ToolTable;
use std::collections::VecDeque;

const MAGIC: &[u8; 4] = b"TLGS";
/// 2: outcome digests of framing `tlg/o2` (small text parts inline); 128-bit fingerprints;
/// record positions derived from `next_seq` (the window is contiguous).
/// 3: as 2 with 64-bit fingerprints; a pending record's call id is its 40-bit key.
/// 4: as 3 with the run's count of stale calls after its turns, and two more record flags (novel,
/// blank); call-id keys are 38 bits.
const VERSION: u8 = 4;
/// The older versions this build still reads. Their records carry no novelty, so an imported
/// run's old records never count as a change (the stricter reading); their call-id keys are cut
/// to 38 bits, which is what this build matches.
const VERSION_128_BIT: u8 = 2;
const VERSION_64_BIT: u8 = 3;

// The flags byte of a completed record.
const FLAG_ERROR: u8 = 1;
const FLAG_MISSING_TOOL: u8 = 2;
const FLAG_NOVEL: u8 = 4;
const FLAG_BLANK: u8 = 8;

/// Encodes `run` (with its id; `None` for the default run).
pub fn encode(run_id: Option<&str>, run: &Run) -> Vec<u8> {
    let mut w = Writer::with_capacity(64 + run.records().len() * 64);
    w.bytes(MAGIC);
    w.u8(VERSION);
    match run_id {
        None => w.u8(0),
        Some(id) => {
            w.u8(1);
            w.str(id);
        }
    }
    w.u64(run.next_seq);
    w.u32(run.trailing_vetoes);
    w.u64(run.progress_floor);
    w.u32(run.turns);
    w.u32(run.stale_calls);
    w.len(run.tools.len());
    for tool in run.tools.iter() {
        w.str(tool);
    }
    w.len(run.cap_log.len());
    for (tool, times) in &run.cap_log {
        w.str(tool);
        w.len(times.len());
        for t in times {
            w.f64(*t);
        }
    }
    match &run.compaction {
        None => w.u8(0),
        Some(watch) => {
            w.u8(1);
            w.u32(watch.remaining);
            w.u32(watch.identical);
            match &watch.first {
                None => w.u8(0),
                Some((tool, args, outcome)) => {
                    w.u8(1);
                    w.str(tool);
                    w.bytes(args);
                    w.bytes(outcome);
                }
            }
        }
    }
    w.len(run.records().len());
    for r in run.records() {
        w.u16(r.tool());
        w.bytes(&r.args);
        w.u8(kind_code(r.kind()));
        w.f64(r.at);
        match r.state() {
            RecordState::Pending => {
                w.u8(0);
                w.u64(r.args_text_hash().unwrap_or(0));
                w.u64(r.call_id().unwrap_or(0));
            }
            RecordState::Vetoed => w.u8(1),
            RecordState::Completed {
                outcome,
                is_error,
                missing_tool,
                blank,
            } => {
                w.u8(2);
                w.bytes(&outcome);
                let flag = |set: bool, bit: u8| if set { bit } else { 0 };
                w.u8(flag(is_error, FLAG_ERROR)
                    | flag(missing_tool, FLAG_MISSING_TOOL)
                    | flag(r.is_novel(), FLAG_NOVEL)
                    | flag(blank, FLAG_BLANK));
            }
        }
        w.u8(detector_code(r.warned()));
        w.u32(r.same_outcome_run());
        w.u32(r.no_progress());
    }
    w.sealed()
}

/// Decodes a snapshot into (run id, run), checking magic, version, checksum and every value.
pub fn decode(bytes: &[u8]) -> Result<(Option<String>, Run), GuardError> {
    let (body, checksum) = bytes
        .split_last_chunk::<32>()
        .ok_or_else(|| corrupt("it is shorter than its checksum"))?;
    if !body.starts_with(MAGIC) {
        return Err(corrupt(
            "it does not start with the tool-loop-guard snapshot marker",
        ));
    }
    if sha256(body) != *checksum {
        return Err(corrupt(
            "its checksum does not match (the bytes were changed or cut)",
        ));
    }
    let mut r = Reader::new(body, corrupt);
    r.take(MAGIC.len())?;
    // Bytes of a stored fingerprint (16 in version 2, whose first 8 are kept).
    let mut fingerprint_len = 8;
    let version = r.u8()?;
    match version {
        VERSION | VERSION_64_BIT => {}
        VERSION_128_BIT => fingerprint_len = 16,
        version => {
            return Err(corrupt(&format!(
                "its format version is {version}; this build reads versions \
                 {VERSION_128_BIT} to {VERSION}"
            )))
        }
    }
    let run_id = match r.u8()? {
        0 => None,
        1 => Some(r.str()?),
        _ => return Err(corrupt("its run id marker is invalid")),
    };
    let mut run = Run::default();
    run.next_seq = r.u64()?;
    run.trailing_vetoes = r.u32()?;
    run.progress_floor = r.u64()?;
    run.turns = r.u32()?;
    if version == VERSION {
        run.stale_calls = r.u32()?;
    }
    let tools = r.len()?;
    if tools as usize > MAX_TOOLS {
        return Err(corrupt("its tool table is implausibly large"));
    }
    let names = (0..tools)
        .map(|_| r.str())
        .collect::<Result<Vec<String>, GuardError>>()?;
    run.tools = ToolTable::from_names(names.iter().map(String::as_str));
    for _ in 0..r.len()? {
        let tool = r.str()?;
        let mut times = VecDeque::new();
        for _ in 0..r.len()? {
            times.push_back(r.f64()?);
        }
        run.cap_log.push((tool, times));
    }
    run.compaction = match r.u8()? {
        0 => None,
        1 => {
            let remaining = r.u32()?;
            let identical = r.u32()?;
            let first = match r.u8()? {
                0 => None,
                1 => Some((
                    r.str()?,
                    fingerprint(&mut r, fingerprint_len)?,
                    fingerprint(&mut r, fingerprint_len)?,
                )),
                _ => return Err(corrupt("its compaction watch is invalid")),
            };
            Some(Box::new(CompactionWatch {
                remaining,
                first,
                identical,
            }))
        }
        _ => return Err(corrupt("its compaction marker is invalid")),
    };
    let records = r.len()?;
    if u64::from(records) > run.next_seq {
        return Err(corrupt("it holds more records than its history"));
    }
    for _ in 0..records {
        let tool = r.u16()?;
        if usize::from(tool) >= run.tools.len() {
            return Err(corrupt("a record names a tool outside its tool table"));
        }
        let args = fingerprint(&mut r, fingerprint_len)?;
        let kind =
            kind_from_code(r.u8()?).ok_or_else(|| corrupt("a record's tool kind is invalid"))?;
        let at = r.f64()?;
        let mut record = match r.u8()? {
            0 => {
                let text_hash = r.u64()?;
                let call_id = Some(r.u64()?).filter(|id| *id != 0);
                CallRecord::pending(tool, args, kind, at, text_hash, call_id)
            }
            1 => {
                let mut record = CallRecord::pending(tool, args, kind, at, 0, None);
                record.set_state(RecordState::Vetoed);
                record
            }
            2 => {
                let outcome = fingerprint(&mut r, fingerprint_len)?;
                let flags = r.u8()?;
                let mut record = CallRecord::pending(tool, args, kind, at, 0, None);
                if flags & !(FLAG_ERROR | FLAG_MISSING_TOOL | FLAG_NOVEL | FLAG_BLANK) != 0 {
                    return Err(corrupt("a record's flags are invalid"));
                }
                record.set_state(RecordState::Completed {
                    outcome,
                    is_error: flags & FLAG_ERROR != 0,
                    missing_tool: flags & FLAG_MISSING_TOOL != 0,
                    blank: flags & FLAG_BLANK != 0,
                });
                if flags & FLAG_NOVEL != 0 {
                    record.mark_novel();
                }
                record
            }
            _ => return Err(corrupt("a record's state is invalid")),
        };
        let warned = r.u8()?;
        record.set_warned(detector_from_code(warned));
        if warned != 0 && record.warned().is_none() {
            return Err(corrupt("a record names an unknown detector"));
        }
        let same_outcome_run = r.u32()?;
        record.set_counters(same_outcome_run, r.u32()?);
        run.restore(record);
    }
    if !r.at_end() {
        return Err(corrupt("it has trailing bytes"));
    }
    Ok((run_id, run))
}

fn corrupt(why: &str) -> GuardError {
    GuardError::new(
        ErrorCode::InvalidSnapshot,
        None,
        format!("snapshot rejected: {why}"),
    )
}

/// A stored fingerprint of `len` bytes, of which the first 8 are kept.
fn fingerprint(r: &mut Reader, len: usize) -> Result<Fingerprint, GuardError> {
    r.take(len)?
        .first_chunk()
        .copied()
        .ok_or_else(|| corrupt("it is truncated"))
}
