//! "Follow one request": a button that asks the worker to follow the watched
//! SM's next L1 read miss, and the way it took, one row per hop with its
//! cycle and the cycles since the hop before, so the latency a load waits is
//! seen as the parts it is made of.

use std::rc::Rc;

use warplab_lab::follow::{Hop, Journey, Step};
use yew::prelude::*;

use crate::agent::Followed;
use crate::format;
use crate::run_follow::FOLLOW_LIMIT_CYCLES;

/// Properties of [`FollowRequest`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct FollowRequestProps {
    /// The request followed last, as the worker reports it.
    pub followed: Option<Rc<Followed>>,
    /// The watched SM, whose miss the button follows.
    pub watch: u32,
    /// Whether a run plays, is paused or has finished (a finished run is
    /// replayed from its start, and its first miss followed).
    pub can_follow: bool,
    /// The button was pressed.
    pub on_follow: Callback<()>,
}

/// The button and the followed request's hops.
#[component]
pub fn FollowRequest(props: &FollowRequestProps) -> Html {
    let busy = props.followed.as_ref().is_some_and(|followed| followed.active);
    html! {
        <div class="follow-request" data-testid="follow-request">
            <button type="button" class="button" data-testid="follow" disabled={!props.can_follow || busy}
                onclick={props.on_follow.reform(|_: MouseEvent| ())}
                title="Play until this SM's L1 next misses on a load (a finished run is replayed from its start), then follow that sector's request through the memory system and back; the run pauses when the data is in the L1">
                { format!("Follow SM {}'s next L1 miss", props.watch) }
            </button>
            { props.followed.as_deref().map_or_else(Html::default, followed) }
        </div>
    }
}

/// What became of the request followed last.
fn followed(followed: &Followed) -> Html {
    match (&followed.journey, followed.active) {
        (None, true) => html! {
            <p class="hint" data-testid="follow-status">
                { format!("Playing until SM {} misses in its L1…", followed.sm) }
            </p>
        },
        (None, false) => html! {
            <p class="hint" data-testid="follow-status">
                { format!(
                    "SM {} made no L1 read miss before the run ended or in the {} cycles after cycle {} (its work may be \
                     done): watch another SM.",
                    followed.sm,
                    format::count(FOLLOW_LIMIT_CYCLES),
                    format::count(followed.since)
                ) }
            </p>
        },
        (Some(journey), active) => hops(journey, active),
    }
}

/// The hops as a table, and the round trip once the data is home.
fn hops(journey: &Journey, active: bool) -> Html {
    let first = journey.hops.first().map_or(0, |hop| hop.cycle);
    let summary = match (journey.done(), journey.l2_hit(), active) {
        (true, hit, _) => format!(
            "Sector {:#x}: {} cycles from the L1 miss to the data, {}.",
            journey.address,
            format::count(journey.hops.last().map_or(0, |hop| hop.cycle) - first),
            if hit == Some(true) { "an L2 hit" } else { "an L2 miss served by DRAM" }
        ),
        (false, _, true) => format!("Sector {:#x}: on its way…", journey.address),
        (false, _, false) => format!(
            "Sector {:#x}: not back when the follow stopped (the run ended, or {} cycles passed).",
            journey.address,
            format::count(FOLLOW_LIMIT_CYCLES)
        ),
    };
    html! {
        <div class="table-scroll" tabindex="0">
            <p data-testid="follow-summary">{ summary }</p>
            <table class="kernels follow-hops" data-testid="follow-hops">
                <thead><tr><th>{ "Cycle" }</th><th>{ "+cycles" }</th><th>{ "Where" }</th><th>{ "What happened" }</th></tr></thead>
                <tbody>
                    { for journey.hops.iter().enumerate().map(|(index, hop)| {
                        let before = index.checked_sub(1).and_then(|i| journey.hops.get(i)).map_or(hop.cycle, |h| h.cycle);
                        row(journey, hop, hop.cycle - before)
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn row(journey: &Journey, hop: &Hop, since_before: u64) -> Html {
    let (place, what) = describe(journey, hop.step);
    html! {
        <tr data-testid="follow-hop" data-cycle={hop.cycle.to_string()} data-step={format!("{:?}", hop.step)}>
            <td class="num">{ format::count(hop.cycle) }</td>
            <td class="num">{ format!("+{}", format::count(since_before)) }</td>
            <td>{ place }</td>
            <td>{ what }</td>
        </tr>
    }
}

/// Where a step happens and what it is, in words.
fn describe(journey: &Journey, step: Step) -> (String, String) {
    let (sm, slice) = (journey.sm, journey.slice);
    match step {
        Step::L1Miss => {
            (format!("L1 of SM {sm}"), format!("missed; took an MSHR entry for sector {:#x}", journey.address))
        }
        Step::RequestCrossbar => ("Request crossbar".into(), format!("left the L1's miss queue for L2 slice {slice}")),
        Step::AtL2Slice => (format!("L2 slice {slice}"), "arrived in the slice's input queue".into()),
        Step::L2Lookup => (format!("L2 slice {slice}"), lookup(journey).into()),
        Step::ToDram => (dram(journey), "the slice's fill of the sector went to DRAM".into()),
        Step::FromDram => (dram(journey), "the data came back to the slice".into()),
        Step::ReplyCrossbar => ("Reply crossbar".into(), format!("the reply left slice {slice} for SM {sm}")),
        Step::AtSm => (format!("SM {sm}"), "the reply arrived".into()),
        Step::MshrFreed => {
            (format!("L1 of SM {sm}"), "filled; the MSHR entry is free and the waiting loads go on".into())
        }
    }
}

fn lookup(journey: &Journey) -> &'static str {
    match journey.l2_hit() {
        Some(true) => "looked up in the L2: a hit",
        Some(false) => "looked up in the L2: a miss, which waits for the sector's fill",
        None => "looked up in the L2",
    }
}

fn dram(journey: &Journey) -> String {
    format!("DRAM channel {}, bank {}", journey.channel, journey.bank)
}
