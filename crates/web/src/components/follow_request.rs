//! "Follow one request": a choice of load (one of the workload's global loads,
//! by PC, or any) and a button that asks the worker to follow the watched
//! SM's next L1 read miss of that load, and the way it took, one row per hop
//! with its cycle and the cycles since the hop before, so the latency a load
//! waits is seen as the parts it is made of.

use std::rc::Rc;

use warplab_lab::follow::loads::LoadPc;
use warplab_lab::follow::{Hop, Journey, Step};
use web_sys::HtmlSelectElement;
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
    /// The workload's global loads met so far, offered to follow.
    pub loads: Rc<Vec<LoadPc>>,
    /// The button was pressed: the PC of the load chosen, or `None` for any.
    pub on_follow: Callback<Option<u64>>,
}

/// The choice of load, the button and the followed request's hops.
#[component]
pub fn FollowRequest(props: &FollowRequestProps) -> Html {
    let followed_pc = props.followed.as_ref().and_then(|followed| followed.pc);
    let chosen = use_state_eq(|| followed_pc);
    // Following on a finished run replays it, which mounts the panel afresh:
    // the choice comes back with the follow's first update.
    {
        let chosen = chosen.clone();
        use_effect_with(followed_pc, move |&pc| {
            if pc.is_some() {
                chosen.set(pc);
            }
        });
    }
    let busy = props.followed.as_ref().is_some_and(|followed| followed.active);
    let on_choose = {
        let chosen = chosen.clone();
        Callback::from(move |event: Event| {
            let select: Option<HtmlSelectElement> = event.target_dyn_into();
            chosen.set(select.and_then(|select| parse_pc(&select.value())));
        })
    };
    let pc = *chosen;
    let label = match pc {
        Some(pc) => format!("Follow the load at PC {pc:#06x} on SM {}", props.watch),
        None => format!("Follow SM {}'s next L1 miss", props.watch),
    };
    html! {
        <div class="follow-request" data-testid="follow-request">
            <label class="follow-choice" data-tap-explains=""
                title="The load instruction whose request to follow: its next issue on this SM whose sector misses in the L1, or any load's next miss">
                { "Load: " }
                <select data-testid="follow-load" onchange={on_choose}>
                    <option value="" selected={pc.is_none()}>{ "any (the next L1 miss)" }</option>
                    { for props.loads.iter().map(|load| html! {
                        <option value={format!("{:#x}", load.pc)} selected={pc == Some(load.pc)}>
                            { format!("PC {:#06x} {}", load.pc, load.opcode) }
                        </option>
                    }) }
                </select>
            </label>
            <button type="button" class="button" data-testid="follow" disabled={!props.can_follow || busy}
                onclick={props.on_follow.reform(move |_: MouseEvent| pc)}
                title="Play until this SM's L1 next misses on the chosen load (a finished run is replayed from its start), then follow that sector's request through the memory system and back; the run pauses when the data is in the L1">
                { label }
            </button>
            { props.followed.as_deref().map_or_else(Html::default, |f| followed(f, &props.loads)) }
        </div>
    }
}

/// A PC as the select's values spell it (`0x90`); `None` for "any".
fn parse_pc(value: &str) -> Option<u64> {
    u64::from_str_radix(value.strip_prefix("0x")?, 16).ok()
}

/// What became of the request followed last.
fn followed(followed: &Followed, loads: &[LoadPc]) -> Html {
    let what = match followed.pc {
        Some(pc) => format!("the load at PC {pc:#06x}"),
        None => "a load".to_owned(),
    };
    match (&followed.journey, followed.active) {
        (None, true) => html! {
            <p class="hint" data-testid="follow-status">
                { format!("Playing until {what} misses in SM {}'s L1…", followed.sm) }
            </p>
        },
        (None, false) => html! {
            <p class="hint" data-testid="follow-status">
                { format!(
                    "On SM {}, {what} made no L1 read miss before the run ended or in the {} cycles after cycle {} \
                     (its work may be done, or it hits in the L1): watch another SM, or choose another load.",
                    followed.sm,
                    format::count(FOLLOW_LIMIT_CYCLES),
                    format::count(followed.since)
                ) }
            </p>
        },
        (Some(journey), active) => hops(journey, active, loads),
    }
}

/// The hops as a table, and the round trip once the data is home.
fn hops(journey: &Journey, active: bool, loads: &[LoadPc]) -> Html {
    let first = journey.hops.first().map_or(0, |hop| hop.cycle);
    let whose = match journey.load {
        Some(load) => format!(
            "Warp {}'s load at PC {:#06x} (CTA {}), sector {:#x}",
            load.warp, load.pc, load.cta, journey.address
        ),
        None => format!("Sector {:#x}", journey.address),
    };
    let from = if journey.load.is_some() { "its issue" } else { "the L1 miss" };
    let summary = match (journey.done(), journey.l2_hit(), active) {
        (true, hit, _) => format!(
            "{whose}: {} cycles from {from} to the data, {}.",
            format::count(journey.hops.last().map_or(0, |hop| hop.cycle) - first),
            if hit == Some(true) { "an L2 hit" } else { "an L2 miss served by DRAM" }
        ),
        (false, _, true) => format!("{whose}: on its way…"),
        (false, _, false) => format!(
            "{whose}: not back when the follow stopped (the run ended, or {} cycles passed).",
            format::count(FOLLOW_LIMIT_CYCLES)
        ),
    };
    let load_pc = journey.load.map(|load| format!("{:#x}", load.pc));
    let load_warp = journey.load.map(|load| load.warp.to_string());
    html! {
        <div class="table-scroll" tabindex="0">
            <p data-testid="follow-summary">{ summary }</p>
            <table class="kernels follow-hops" data-testid="follow-hops" data-load-pc={load_pc} data-load-warp={load_warp}>
                <thead><tr><th>{ "Cycle" }</th><th>{ "+cycles" }</th><th>{ "Where" }</th><th>{ "What happened" }</th></tr></thead>
                <tbody>
                    { for journey.hops.iter().enumerate().map(|(index, hop)| {
                        let before = index.checked_sub(1).and_then(|i| journey.hops.get(i)).map_or(hop.cycle, |h| h.cycle);
                        row(journey, hop, hop.cycle - before, loads)
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn row(journey: &Journey, hop: &Hop, since_before: u64, loads: &[LoadPc]) -> Html {
    let (place, what) = describe(journey, hop.step, loads);
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
fn describe(journey: &Journey, step: Step, loads: &[LoadPc]) -> (String, String) {
    let (sm, slice) = (journey.sm, journey.slice);
    match step {
        Step::Issued => issued(journey, loads),
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

/// The chosen load's issue, named by its opcode where the page knows it.
fn issued(journey: &Journey, loads: &[LoadPc]) -> (String, String) {
    let Some(load) = journey.load else { return (format!("SM {}", journey.sm), "issued".into()) };
    let opcode = loads.iter().find(|known| known.pc == load.pc).map_or("the load", |known| known.opcode.as_str());
    (
        format!("SM {}, warp {}", journey.sm, load.warp),
        format!("issued {opcode} at PC {:#06x} (CTA {}); its sector missed in the L1", load.pc, load.cta),
    )
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
