//! One compaction's request context ([`CompactCall`]) and its run, in
//! phases: sanitize the tool results (when asked) and measure, plan and
//! hash, list the stash (once per call, when a phase first needs it),
//! decide the records, renewals and sweep, commit them all in one write,
//! replace only what committed, report. The phases that decide are plain
//! functions (`commit`, `upkeep`, `compact`); this file does the stash's
//! I/O. (Async phase functions of their own cost the main module over 4 KB
//! gzipped in futures.)

use crate::event_loop::Slicer;
use crate::history::breakpoint::{place, stable_end};
use crate::history::commit::{gone_records, new_records, replacements, sort_results, Written};
use crate::history::compact::{
    apply_compaction, hash_found, occurrence_templates, select_history_images, CompactOptions,
    CompactReport, HistoryImage, Plan, HASH_HEAD_BYTES,
};
mod offload_phase;
use crate::history::digest::Digest;
use crate::history::flow::{encode, Changes, Encoded, Outcome};
use crate::history::known::{Input, Settled};
use crate::history::known_prefix::KnownPrefix;
use crate::history::listing::Listing;
use crate::history::measure::{measure, Measured};
use crate::history::offload::Offload;
use crate::history::payloads::CompactPayloads;
use crate::history::plan_messages::PlanMessages;
use crate::history::untouched::Untouched;
use crate::history::upkeep::{renewals, sweep_plan, Renewals};
use crate::messages::image::ImageTemplate;
use crate::messages::{Format, Message, MessageError};
use crate::stash::{
    Commit, Committed, Failure, Maintenance, NewRecord, StashAccess, StashBackend, WrittenAt,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::rc::Rc;

/// One compaction: the stash, the options, where payloads are read, and
/// who hears of progress; [`CompactCall::run`] compacts a request.
pub struct CompactCall<'a, B> {
    /// The stash, its settings and the clock.
    stash: StashAccess<'a, B>,
    options: CompactOptions,
    payloads: &'a dyn CompactPayloads,
    /// Called after each image is hashed with (done, total, bytes).
    progress: Option<&'a mut dyn FnMut(usize, usize, u64)>,
    /// The stash's records, listed once.
    listing: Listing,
    /// Where kept history images go by reference, when asked.
    offload: Option<Offload<'a>>,
    /// What measuring made of the inputs' first known messages, and how
    /// many of them the call takes from it.
    prefix: Option<(&'a KnownPrefix, usize)>,
}

impl<'a, B: StashBackend> CompactCall<'a, B> {
    /// A compaction against `stash` with `options`, reading payloads
    /// through `payloads`.
    pub fn new(
        stash: StashAccess<'a, B>,
        options: CompactOptions,
        payloads: &'a dyn CompactPayloads,
    ) -> Self {
        CompactCall {
            stash,
            options,
            payloads,
            progress: None,
            listing: Listing::default(),
            offload: None,
            prefix: None,
        }
    }

    /// The same call, taking the facts of its inputs' first `taken`
    /// messages from `prefix` (a [`KnownPrefix`] of the same inputs, and
    /// `taken` what [`KnownPrefix::usable`] allows the call), not from the
    /// messages.
    pub fn with_known_prefix(self, prefix: &'a KnownPrefix, taken: usize) -> Self {
        CompactCall {
            prefix: Some((prefix, taken)),
            ..self
        }
    }

    /// The same call, telling `progress(done, total, bytes)` after each
    /// history image is hashed.
    pub fn with_progress(self, progress: &'a mut dyn FnMut(usize, usize, u64)) -> Self {
        CompactCall {
            progress: Some(progress),
            ..self
        }
    }

    /// Compacts `inputs` as [`crate::history::settle_inputs`] settled
    /// them. Stash failures never throw: the images stay inline and the
    /// report says why. A known message is not written back (its value in
    /// the outcome is `null`, unchanged: the caller's own stays). Returns,
    /// with the outcome, the digest of each message read that compaction
    /// cannot change, to remember. The values of the messages read are
    /// taken out of `inputs` (`null` is left in their place); the known
    /// messages stay as they were handed, for the caller to keep.
    pub async fn run(
        self,
        inputs: &mut [Input],
        settled: &Settled,
    ) -> Result<(Outcome<CompactReport>, Vec<Option<Rc<Digest>>>), MessageError> {
        let (encoded, digests) = self.compact(inputs, settled).await?;
        Ok((encoded.into_outcome(), digests))
    }

    /// [`CompactCall::run`], giving only the changed messages: for a
    /// caller that keeps its own unchanged ones (no value is made for each
    /// message of a long request).
    pub async fn run_changes(
        self,
        inputs: &mut [Input],
        settled: &Settled,
    ) -> Result<(Changes<CompactReport>, Vec<Option<Rc<Digest>>>), MessageError> {
        let (encoded, digests) = self.compact(inputs, settled).await?;
        Ok((encoded.into_changes(), digests))
    }

    /// The compaction of [`CompactCall::run`], its messages written.
    async fn compact(
        mut self,
        inputs: &mut [Input],
        settled: &Settled,
    ) -> Result<(Encoded<CompactReport>, Vec<Option<Rc<Digest>>>), MessageError> {
        let Measured {
            messages,
            at,
            known_ids,
            named_before,
            turns,
            sizes,
            sanitized,
            binary_ids,
            remembered,
            mut report,
            digests,
            known,
        } = measure(
            self.stash,
            &mut self.listing,
            inputs,
            settled,
            self.options,
            self.payloads,
            self.prefix,
        )
        .await?;
        // The request as JSON text: its messages, the commas between them
        // and the array's brackets (as `budget::request_bytes` counts it).
        let request_bytes = sizes.iter().sum::<u64>() + (sizes.len() as u64).saturating_sub(1) + 2;
        let rule = Untouched::of_turns(&turns);
        let planned = PlanMessages::within(&messages, &at, &known_ids, named_before, rule);
        drop(turns);
        let plan = self.plan(planned, request_bytes).await;
        report_plan(&mut report, &plan);
        let breakpoint_at = self
            .options
            .cache_breakpoint
            .then(|| stable_end(&plan, self.options, messages.len()))
            .flatten()
            .map(|i| planned.request_index(i));
        let records = self.records(planned, &plan, &remembered).await;
        let (mut commit, maintenance) =
            self.upkeep(records, &plan, &remembered, binary_ids, &mut report);
        let committed = self.commit(&mut commit).await;
        let written = sort_results(&commit.records, &committed.records);
        report.written = written.committed.len();
        let replacements = replacements(&plan, &written, &mut report);
        let (references, uploaded_at) = self
            .references(
                &plan,
                &commit.records,
                &written,
                settled.format,
                &mut report,
            )
            .await;
        report.first_changed_index =
            first_changed(&replacements, &written, uploaded_at).map(|i| planned.request_index(i));
        drop(plan);
        report_upkeep(&mut report, &commit, committed, &maintenance);
        drop(commit);
        let each = EachMessage {
            at: &at,
            sanitized: &sanitized,
            sizes: &sizes,
            known: &known,
        };
        let swaps = Swaps {
            placeholders: &replacements,
            references: &references,
        };
        let breakpoint = breakpoint_at.map(|at| (at, settled.format));
        let outcome = self.finish(messages, swaps, each, breakpoint, report);
        Ok((outcome, digests))
    }

    /// Upkeep, decided before the commit: the records the conversation
    /// references renewed (the confirmed ones and the binaries remembered
    /// outcomes name too), and the sweep, for a store that does not expire
    /// records by itself. Returns the commit of `records` with them.
    fn upkeep<'m>(
        &mut self,
        records: Vec<NewRecord<'m>>,
        plan: &Plan<'_>,
        remembered: &[String],
        binary_ids: BTreeSet<String>,
        report: &mut CompactReport,
    ) -> (Commit<'m>, Maintenance) {
        let mut referenced = plan.referenced.clone();
        for id in records
            .iter()
            .filter(|r| r.stored)
            .map(|r| &r.id)
            .chain(remembered)
        {
            if !referenced.contains(id) {
                referenced.push(id.clone());
            }
        }
        let (mut listed, listing_failure) = self.listing.take();
        report.failures.extend(listing_failure);
        let when = (self.stash.now, self.stash.config);
        let Renewals { protected, renewed } =
            renewals(&referenced, &mut listed, &records, binary_ids, when, report);
        let maintenance = if self.stash.backend.expires_by_itself() {
            Maintenance::default()
        } else {
            sweep_plan(listed, &records, when, &protected)
        };
        let commit = Commit {
            records,
            renewed,
            deleted: maintenance.doomed(),
        };
        (commit, maintenance)
    }

    /// Replace: only the images whose record committed (`replacements`),
    /// the messages sanitizing changed marked too, the cache breakpoint
    /// placed at the message `breakpoint` names, as its format writes it,
    /// and the messages encoded.
    fn finish(
        &self,
        mut messages: Vec<Message>,
        swaps: Swaps<'_>,
        each: EachMessage<'_>,
        breakpoint: Option<(usize, Format)>,
        mut report: CompactReport,
    ) -> Encoded<CompactReport> {
        let rewritten = apply_compaction(
            &mut messages,
            swaps.placeholders,
            swaps.references,
            self.options.collapse_text,
        );
        // Per message of the request: rewritten, or changed by sanitizing.
        let mut changed = each.sanitized.to_vec();
        for (k, _) in rewritten.iter().enumerate().filter(|(_, c)| **c) {
            if let Some(c) = each.at.get(k).and_then(|&i| changed.get_mut(i)) {
                *c = true;
            }
        }
        let (mut values, mut after) = encode(
            messages,
            Some(each.at),
            &changed,
            each.sizes,
            each.known,
            self.payloads,
        );
        if let Some((at, format)) = breakpoint {
            if let Some(grown) = place(&mut values, at, format, self.payloads) {
                changed[at] = true;
                after = after.saturating_add_signed(grown);
                report.cache_breakpoint_index = Some(at);
            }
        }
        report.bytes_after = after;
        Encoded {
            values,
            changed,
            report,
        }
    }

    /// Plan: the history images to stash, hashed one at a time with the
    /// host running between them (`request_bytes`: the request's size, for
    /// the limits).
    async fn plan<'m>(&mut self, messages: PlanMessages<'m>, request_bytes: u64) -> Plan<'m> {
        let payloads = self.payloads;
        let slicer = Slicer::of(payloads.event_loop());
        slicer.checkpoint().await;
        let offload = self.offloading();
        let (mut plan, found) = select_history_images(
            messages,
            self.options,
            request_bytes,
            payloads,
            offload.is_some(),
        );
        let offloads = |img: &HistoryImage<'m>| Self::offloads(offload, messages.messages, img);
        let total = found.len();
        let mut hashed = BTreeSet::new();
        let mut hashed_bytes = 0u64;
        for (done, f) in found.into_iter().enumerate() {
            if let Some((_, payload)) = f.inline_payload() {
                payloads
                    .prepare_facts(payload, HASH_HEAD_BYTES, &slicer)
                    .await;
            }
            hashed_bytes += hash_found(&mut plan, f, &mut hashed, payloads, &offloads);
            if let Some(progress) = self.progress.as_mut() {
                progress(done + 1, total, hashed_bytes);
            }
            slicer.checkpoint().await;
        }
        plan
    }

    /// The records to write for `plan`, one per distinct image (the records
    /// `remembered` names looked up with them). An image
    /// stashed again while earlier placeholders of it remain keeps the
    /// shapes those placeholders stand for (read from its record).
    async fn records<'m>(
        &mut self,
        messages: PlanMessages<'_>,
        plan: &Plan<'m>,
        remembered: &[String],
    ) -> Vec<NewRecord<'m>>
    where
        'a: 'm,
    {
        let backend = self.stash.backend;
        // Looked up together: the placeholders', the images' and the
        // binaries remembered outcomes name.
        let mut named: Vec<String> = plan.referenced.clone();
        named.extend(remembered.iter().cloned());
        named.extend(
            plan.images
                .iter()
                .filter(|i| !i.duplicate)
                .map(|i| i.md5.clone()),
        );
        let listed = self.listing.of(backend, &named).await;
        let mut earlier = Vec::new();
        for img in plan.images.iter().filter(|i| !i.duplicate) {
            if listed.contains_key(&img.md5) && plan.referenced.contains(&img.md5) {
                if let Ok(Some(rec)) = backend.get_record(&img.md5).await {
                    let list = rec
                        .part
                        .as_deref()
                        .map(ImageTemplate::list_from_json_text)
                        .unwrap_or_default();
                    earlier.push((img.md5.clone(), list));
                }
            }
        }
        let templates = occurrence_templates(messages, plan, &earlier);
        drop(earlier);
        let written_at = WrittenAt {
            now: self.stash.now,
            ttl_ms: self.stash.config.ttl_ms,
        };
        let mut records = new_records(plan, templates, listed, written_at);
        // A payload that lies in wasm memory behind its reference (a request
        // body's) is written as its text.
        for r in &mut records {
            if let Some(text) = self.payloads.in_memory(r.payload) {
                r.payload = text;
            }
        }
        records
    }

    /// Commit: the records, renewals and sweep in one write. A record the
    /// listing named but that is gone (another connection deleted it) is
    /// written in full after all, in a second write.
    async fn commit(&self, commit: &mut Commit<'_>) -> Committed {
        if commit.is_empty() {
            return Committed {
                records: Vec::new(),
                renewed: Ok(()),
                deleted: Ok(()),
            };
        }
        let backend = self.stash.backend;
        let mut committed = backend.commit(commit).await;
        let (gone, retry) = gone_records(&commit.records, &committed.records);
        if !gone.is_empty() {
            let again = backend.put_records(&retry).await;
            for ((&i, r), result) in gone.iter().zip(retry).zip(again) {
                commit.records[i] = r;
                committed.records[i] = result;
            }
        }
        committed
    }
}

/// What replaces images: placeholders ((message, image ordinal), md5) and
/// file reference parts.
struct Swaps<'x> {
    placeholders: &'x [((usize, usize), String)],
    references: &'x [((usize, usize), Value)],
}

/// What measuring found of each message, as finishing needs it.
struct EachMessage<'x> {
    /// The index in the request of each message planned with.
    at: &'x [usize],
    /// Did sanitizing its tool results change it?
    sanitized: &'x [bool],
    /// Its serialized size (after sanitizing).
    sizes: &'x [u64],
    /// Was it known by its digest (a stand-in, not written back)?
    known: &'x [bool],
}

/// The first message (as the plan numbers them) holding an image stashed
/// for the first time now (its record written now), or uploaded now
/// (`uploaded_at`). Images an earlier call stashed come back as the same
/// placeholders: the request moves where an image is stashed for the first
/// time.
fn first_changed(
    replacements: &[((usize, usize), String)],
    written: &Written,
    uploaded_at: Option<usize>,
) -> Option<usize> {
    replacements
        .iter()
        .filter(|(_, md5)| written.committed.contains_key(md5))
        .map(|((message, _), _)| *message)
        .chain(uploaded_at)
        .min()
}

/// What the plan tells the report: the newest turn, the images kept and
/// given by URL, those stashed for the limits, whether the request fits, and
/// the images that cannot be stashed.
fn report_plan(report: &mut CompactReport, plan: &Plan<'_>) {
    report.newest_user_index = plan.newest_user;
    report.limit_stashed = plan.limit_stashed;
    report.fits = plan.limit_problem.is_none();
    report.limit_problem = plan.limit_problem.clone();
    report.kept = plan.kept;
    report.urls = plan.urls;
    report.failures.extend(plan.invalid.iter().cloned());
}

/// What the commit's renewals and sweep tell the report.
fn report_upkeep(
    report: &mut CompactReport,
    commit: &Commit<'_>,
    committed: Committed,
    maintenance: &crate::stash::Maintenance,
) {
    if let Err(e) = committed.renewed {
        report.failures.push(Failure::of_stash(
            e.kind.code(),
            format!("refreshing expiry failed: {e}"),
        ));
    }
    if !commit.deleted.is_empty() {
        if let Err(e) = committed.deleted {
            report.failures.push(Failure::of_stash(
                e.kind.code(),
                format!("sweeping the stash failed: {e}"),
            ));
        } else {
            report.expired = maintenance.expired.len();
            report.evicted = maintenance.evicted.len();
        }
    }
    report.over_budget = maintenance.over_budget;
}
