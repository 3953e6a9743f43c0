//! Snapshots of one run under `preset: "openclaw"`, so hosts that persist runs (a Durable Object,
//! a Redis-backed gateway) keep OpenClaw's window across processes. Like the default snapshots
//! they hold digests, tool names and counters only, never arguments or results.
//!
//! Layout (little-endian): magic `TLGO`, version byte, run id, the refused flag, the
//! post-compaction watch, the warned buckets, the records, then SHA-256 of everything before it.
//! A default-preset snapshot (`TLGS`) is refused here and this one there, with `invalid_snapshot`.

use super::detect::WarningKey;
use super::outcome::{Outcome, OutcomeKind};
use super::{CompactionWatch, Record, RunState, Signature};
use crate::canonical::{sha256, Digest};
use crate::error::{ErrorCode, GuardError};

const MAGIC: &[u8; 4] = b"TLGO";
const VERSION: u8 = 1;
/// Bounds that keep a corrupt snapshot from allocating without limit.
const MAX_ITEMS: u32 = 1_000_000;

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn digest(&mut self, d: &Digest) {
        self.0.extend_from_slice(d);
    }
    fn opt<T>(&mut self, v: Option<T>, put: impl FnOnce(&mut Self, T)) {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                put(self, v);
            }
        }
    }
    fn signature(&mut self, s: &Signature) {
        self.str(&s.tool);
        self.digest(&s.args);
    }
}

fn corrupt(what: &str) -> GuardError {
    GuardError::new(
        ErrorCode::InvalidSnapshot,
        None,
        format!("not an openclaw-preset run snapshot: {what}"),
    )
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], GuardError> {
        let (head, tail) = self
            .0
            .split_at_checked(n)
            .ok_or_else(|| corrupt("truncated"))?;
        self.0 = tail;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, GuardError> {
        Ok(self.take(1)?.first().copied().unwrap_or(0))
    }
    fn u32(&mut self) -> Result<u32, GuardError> {
        let mut b = [0; 4];
        b.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(b))
    }
    fn u64(&mut self) -> Result<u64, GuardError> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }
    fn count(&mut self) -> Result<usize, GuardError> {
        match self.u32()? {
            n if n > MAX_ITEMS => Err(corrupt("implausible length")),
            n => Ok(n as usize),
        }
    }
    fn str(&mut self) -> Result<String, GuardError> {
        let n = self.count()?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| corrupt("text is not UTF-8"))
    }
    fn digest(&mut self) -> Result<Digest, GuardError> {
        let mut d = [0; 32];
        d.copy_from_slice(self.take(32)?);
        Ok(d)
    }
    fn flag(&mut self) -> Result<bool, GuardError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("bad flag")),
        }
    }
    fn opt<T>(
        &mut self,
        get: impl FnOnce(&mut Self) -> Result<T, GuardError>,
    ) -> Result<Option<T>, GuardError> {
        if self.flag()? {
            get(self).map(Some)
        } else {
            Ok(None)
        }
    }
    fn signature(&mut self) -> Result<Signature, GuardError> {
        Ok(Signature {
            tool: self.str()?.into(),
            args: self.digest()?,
        })
    }
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
            w.signature(s);
            w.opt(hash.as_ref(), Writer::digest);
        }
        WarningKey::PingPong(a, b) => {
            w.u8(2);
            w.signature(a);
            w.signature(b);
        }
        WarningKey::PingPongAlone(s) => {
            w.u8(3);
            w.signature(s);
        }
        WarningKey::ArgumentChurn(tool) => {
            w.u8(4);
            w.str(tool);
        }
        WarningKey::Generic(s) => {
            w.u8(5);
            w.signature(s);
        }
        WarningKey::None => w.u8(0),
    }
}

fn get_key(r: &mut Reader) -> Result<WarningKey, GuardError> {
    Ok(match r.u8()? {
        0 => WarningKey::None,
        1 => WarningKey::Poll(r.signature()?, r.opt(Reader::digest)?),
        2 => WarningKey::PingPong(r.signature()?, r.signature()?),
        3 => WarningKey::PingPongAlone(r.signature()?),
        4 => WarningKey::ArgumentChurn(r.str()?.into()),
        5 => WarningKey::Generic(r.signature()?),
        _ => return Err(corrupt("unknown warning key")),
    })
}

/// Encodes `run` (with its id; `None` for the default run).
pub fn encode(run_id: Option<&str>, run: &RunState) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(64 + run.records.len() * 96));
    w.0.extend_from_slice(MAGIC);
    w.u8(VERSION);
    w.opt(run_id, Writer::str);
    w.u8(u8::from(run.refused_before));
    w.opt(run.compaction.as_ref(), |w, watch| {
        w.u32(watch.remaining);
        w.len(watch.seen.len());
        for (signature, hash) in &watch.seen {
            w.signature(signature);
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
        w.signature(&record.signature);
        w.opt(record.call_id, Writer::u64);
        w.opt(record.outcome.as_ref(), |w, o| {
            w.opt(o.hash.as_ref(), Writer::digest);
            w.u8(kind_code(o.kind));
            w.opt(o.failure_identity.as_ref(), Writer::digest);
            w.u8(u8::from(o.no_progress));
            w.opt(o.unknown_tool.as_deref(), Writer::str);
        });
    }
    let checksum = sha256(&w.0);
    w.digest(&checksum);
    w.0
}

/// Decodes a snapshot from `encode`: the run's id and state.
pub fn decode(bytes: &[u8]) -> Result<(Option<String>, RunState), GuardError> {
    let body_len = bytes
        .len()
        .checked_sub(32)
        .ok_or_else(|| corrupt("truncated"))?;
    let (body, checksum) = bytes
        .split_at_checked(body_len)
        .ok_or_else(|| corrupt("truncated"))?;
    let mut r = Reader(body);
    if r.take(4)? != MAGIC {
        return Err(corrupt("wrong magic (a snapshot of another preset?)"));
    }
    if r.u8()? != VERSION {
        return Err(corrupt("unknown version"));
    }
    if sha256(body).as_slice() != checksum {
        return Err(corrupt("checksum mismatch"));
    }
    let run_id = r.opt(Reader::str)?;
    let refused_before = r.flag()?;
    let compaction = r.opt(|r| {
        let remaining = r.u32()?;
        let seen = (0..r.count()?)
            .map(|_| Ok((r.signature()?, r.opt(Reader::digest)?)))
            .collect::<Result<_, GuardError>>()?;
        Ok(CompactionWatch { remaining, seen })
    })?;
    let warned = (0..r.count()?)
        .map(|_| Ok((get_key(&mut r)?, r.u32()?)))
        .collect::<Result<_, GuardError>>()?;
    let records = (0..r.count()?)
        .map(|_| {
            let signature = r.signature()?;
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
            Ok(Record {
                signature,
                call_id,
                outcome,
            })
        })
        .collect::<Result<_, GuardError>>()?;
    if !r.0.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    let run = RunState {
        records,
        warned,
        refused_before,
        compaction,
        serial: 0,
    };
    Ok((run_id, run))
}
