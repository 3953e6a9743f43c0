//! Snapshots of one run under `preset: "openclaw"`, so hosts that persist runs (a Durable Object,
//! a Redis-backed gateway) keep OpenClaw's window across processes. Like the default snapshots
//! they hold digests, tool names and counters only, never arguments or results.
//!
//! Layout (little-endian): magic `TLGO`, version byte, run id, the window's hash (as the default
//! snapshots write it; version 1 had none: SHA-256), the refused flag, the post-compaction watch,
//! the warned buckets, the records, then SHA-256 of everything before it.
//! A default-preset snapshot (`TLGS`) is refused here and this one there, with `invalid_snapshot`.

use super::detect::WarningKey;
use super::outcome::{Outcome, OutcomeKind};
use super::{CompactionTail, Entry, OpenClawRun, Signature};
use crate::error::{ErrorCode, GuardError};
use crate::json::digest::sha256;
use crate::json::window_hash::WindowHash;
use crate::run::snapshot_bytes::{Reader, Writer};
use crate::run::table::RunSnapshot;

const MAGIC: &[u8; 4] = b"TLGO";
/// 2: the window's hash after the run id. 1: none (digests were SHA-256), still read.
const VERSION: u8 = 2;
const VERSION_SHA256: u8 = 1;

fn corrupt(what: &str) -> GuardError {
    GuardError::new(
        ErrorCode::InvalidSnapshot,
        None,
        format!("not an openclaw-preset run snapshot: {what}"),
    )
}

fn put_signature(w: &mut Writer, s: &Signature) {
    w.str(&s.tool);
    w.digest(&s.args);
}

fn get_signature(r: &mut Reader) -> Result<Signature, GuardError> {
    Ok(Signature {
        tool: r.str()?.into(),
        args: r.digest()?,
    })
}

fn kind_code(kind: OutcomeKind) -> u8 {
    match kind {
        OutcomeKind::Plain => 0,
        OutcomeKind::LoopVeto => 1,
        OutcomeKind::TerminalExecFailure => 2,
    }
}

fn put_key(w: &mut Writer, key: &WarningKey) {
    match key {
        WarningKey::Poll(s, hash) => {
            w.u8(1);
            put_signature(w, s);
            w.opt(hash.as_ref(), Writer::digest);
        }
        WarningKey::PingPong(a, b) => {
            w.u8(2);
            put_signature(w, a);
            put_signature(w, b);
        }
        WarningKey::PingPongAlone(s) => {
            w.u8(3);
            put_signature(w, s);
        }
        WarningKey::ArgumentChurn(tool) => {
            w.u8(4);
            w.str(tool);
        }
        WarningKey::Generic(s) => {
            w.u8(5);
            put_signature(w, s);
        }
        WarningKey::None => w.u8(0),
    }
}

fn get_key(r: &mut Reader) -> Result<WarningKey, GuardError> {
    Ok(match r.u8()? {
        0 => WarningKey::None,
        1 => WarningKey::Poll(get_signature(r)?, r.opt(Reader::digest)?),
        2 => WarningKey::PingPong(get_signature(r)?, get_signature(r)?),
        3 => WarningKey::PingPongAlone(get_signature(r)?),
        4 => WarningKey::ArgumentChurn(r.str()?.into()),
        5 => WarningKey::Generic(get_signature(r)?),
        _ => return Err(corrupt("unknown warning key")),
    })
}

/// Encodes `run` (with its id; `None` for the default run).
pub fn encode(run_id: Option<&str>, run: &OpenClawRun, hash: WindowHash) -> Vec<u8> {
    let mut w = Writer::with_capacity(64 + run.records.len() * 96);
    w.bytes(MAGIC);
    w.u8(VERSION);
    w.opt(run_id, Writer::str);
    w.window_hash(hash);
    w.u8(u8::from(run.refused_before));
    w.opt(run.compaction.as_ref(), |w, watch| {
        w.u32(watch.remaining);
        w.len(watch.seen.len());
        for (signature, hash) in &watch.seen {
            put_signature(w, signature);
            w.opt(hash.as_ref(), Writer::digest);
        }
    });
    w.len(run.warned.len());
    for (key, bucket) in &run.warned {
        put_key(&mut w, key);
        w.u32(*bucket);
    }
    w.len(run.records.len());
    for record in &run.records {
        put_signature(&mut w, &record.signature);
        w.opt(record.call_id, Writer::u64);
        w.opt(record.outcome.as_ref(), |w, o| {
            w.opt(o.hash.as_ref(), Writer::digest);
            w.u8(kind_code(o.kind));
            w.opt(o.failure_identity.as_ref(), Writer::digest);
            w.u8(u8::from(o.no_progress));
            w.opt(o.unknown_tool.as_deref(), Writer::str);
        });
    }
    w.sealed()
}

/// Decodes a snapshot from `encode`: the run's id, state and window hash.
pub fn decode(bytes: &[u8]) -> Result<(Option<String>, OpenClawRun, WindowHash), GuardError> {
    let (body, checksum) = bytes
        .split_last_chunk::<32>()
        .ok_or_else(|| corrupt("it is truncated"))?;
    let mut r = Reader::new(body, corrupt);
    if r.take(4)? != MAGIC {
        return Err(corrupt("wrong magic (a snapshot of another preset?)"));
    }
    let version = r.u8()?;
    if version != VERSION && version != VERSION_SHA256 {
        return Err(corrupt("unknown version"));
    }
    if sha256(body) != *checksum {
        return Err(corrupt("checksum mismatch"));
    }
    let run_id = r.opt(Reader::str)?;
    let hash = match version {
        VERSION => r.window_hash()?,
        _ => WindowHash::Sha256,
    };
    let refused_before = r.flag()?;
    let compaction = r.opt(|r| {
        let remaining = r.u32()?;
        let seen = (0..r.len()?)
            .map(|_| Ok((get_signature(r)?, r.opt(Reader::digest)?)))
            .collect::<Result<_, GuardError>>()?;
        Ok(CompactionTail { remaining, seen })
    })?;
    let warned = (0..r.len()?)
        .map(|_| Ok((get_key(&mut r)?, r.u32()?)))
        .collect::<Result<_, GuardError>>()?;
    let records = (0..r.len()?)
        .map(|_| {
            let signature = get_signature(&mut r)?;
            let call_id = r.opt(Reader::u64)?;
            let outcome = r.opt(|r| {
                let hash = r.opt(Reader::digest)?;
                let kind = match r.u8()? {
                    0 => OutcomeKind::Plain,
                    1 => OutcomeKind::LoopVeto,
                    2 => OutcomeKind::TerminalExecFailure,
                    _ => return Err(corrupt("unknown outcome kind")),
                };
                Ok(Outcome {
                    hash,
                    kind,
                    failure_identity: r.opt(Reader::digest)?,
                    no_progress: r.flag()?,
                    unknown_tool: r.opt(Reader::str)?,
                })
            })?;
            Ok(Entry {
                signature,
                call_id,
                outcome,
            })
        })
        .collect::<Result<_, GuardError>>()?;
    if !r.at_end() {
        return Err(corrupt("trailing bytes"));
    }
    let run = OpenClawRun {
        records,
        warned,
        refused_before,
        compaction,
    };
    Ok((run_id, run, hash))
}

impl RunSnapshot for OpenClawRun {
    fn encode(run_id: Option<&str>, run: &OpenClawRun, hash: WindowHash) -> Vec<u8> {
        encode(run_id, run, hash)
    }

    fn decode(bytes: &[u8]) -> Result<(Option<String>, OpenClawRun, WindowHash), GuardError> {
        decode(bytes)
    }

    fn cut_window(&mut self, history_size: usize) {
        let excess = self.records.len().saturating_sub(history_size);
        self.records.drain(..excess);
    }
}
