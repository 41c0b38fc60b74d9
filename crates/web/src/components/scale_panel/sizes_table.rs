//! "Target and scale models": every size of the series side by side, the
//! shared resources each divides by its factor and the per-SM ones it keeps.

use yew::prelude::*;

use crate::agent::{ScaleSetup, ScaleSize};
use crate::glossary;

/// One row per size, smallest first; `target` is the size predicted.
pub fn sizes_table(setup: &ScaleSetup, target: u32) -> Html {
    if setup.sizes.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h3 class="subheading" title={glossary::SCALE_MODEL}>{ "Target and scale models" }</h3>
            <div class="table-scroll" tabindex="0">
                <table class="kernels scale-sizes" data-testid="scale-sizes">
                    <thead>
                        <tr class="groups">
                            <th colspan="3"></th>
                            <th colspan="5" class="divided" title={glossary::SCALE_DIVIDED}>{ "divided by the factor" }</th>
                            <th colspan="3" class="kept" title={glossary::SCALE_KEPT}>{ "kept per SM" }</th>
                        </tr>
                        <tr>
                            <th>{ "system" }</th>
                            <th class="num">{ "SMs" }</th>
                            <th class="num" title={glossary::SCALE_FACTOR}>{ "factor" }</th>
                            <th class="num divided">{ "L2" }</th>
                            <th class="num">{ "slices" }</th>
                            <th class="num">{ "NoC GB/s" }</th>
                            <th class="num">{ "DRAM GB/s" }</th>
                            <th class="num">{ "channels" }</th>
                            <th class="num kept">{ "L1" }</th>
                            <th class="num" title={glossary::MSHR}>{ "MSHRs" }</th>
                            <th class="num">{ "warps" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for setup.sizes.iter().enumerate().map(|(index, size)| row(setup, index, size, target)) }
                    </tbody>
                </table>
            </div>
        </>
    }
}

/// What a size is in the series.
fn role(setup: &ScaleSetup, index: usize, size: &ScaleSize, target: u32) -> &'static str {
    match index {
        0 => "scale model S",
        1 => "scale model 2S",
        _ if size.sms == target => "target",
        _ if size.sms == setup.target_sms => "loaded config",
        _ if size.sms > target => "beyond the target",
        _ => "between",
    }
}

fn row(setup: &ScaleSetup, index: usize, size: &ScaleSize, target: u32) -> Html {
    let role = role(setup, index, size, target);
    let class = match role {
        "target" => "target",
        _ if size.sms > target => "muted",
        _ if index < 2 => "scale-model",
        _ => "",
    };
    let optional = |value: Option<String>| value.unwrap_or_else(|| "–".to_owned());
    html! {
        <tr class={class} data-testid="scale-size" data-sms={size.sms.to_string()}>
            <th scope="row">{ role }</th>
            <td class="num">{ sms_text(size) }</td>
            <td class="num">{ format!("1/{}", size.factor) }</td>
            <td class="num">{ bytes(size.llc_bytes) }</td>
            <td class="num">{ size.llc_slices }</td>
            <td class="num">{ gigabytes_per_second(size.noc_bytes_per_second) }</td>
            <td class="num">{ gigabytes_per_second(size.dram_bytes_per_second) }</td>
            <td class="num">{ channels_text(size) }</td>
            <td class="num">{ optional(size.l1_bytes.map(bytes)) }</td>
            <td class="num">{ optional(size.l1_mshrs.map(|m| m.to_string())) }</td>
            <td class="num">{ size.warps_per_sm }</td>
        </tr>
    }
}

/// SMs, and the chiplets they make on a chiplet GPU.
fn sms_text(size: &ScaleSize) -> String {
    if size.chiplets > 1 { format!("{} ({} chiplets)", size.sms, size.chiplets) } else { size.sms.to_string() }
}

/// Channels, and on a chiplet GPU the inter-chiplet bisection bandwidth,
/// which the chiplet scale operator divides with the chiplets.
fn channels_text(size: &ScaleSize) -> String {
    if size.chiplets > 1 {
        format!("{} (links {} GB/s bisection)", size.channels, gigabytes_per_second(size.bisection_bytes_per_second))
    } else {
        size.channels.to_string()
    }
}

/// A capacity in KB below a megabyte, else in MB (binary units, as configs give them).
fn bytes(value: u64) -> String {
    const KIB: f64 = 1024.0;
    let value = value as f64;
    if value < KIB * KIB {
        format!("{} KB", trimmed(value / KIB))
    } else {
        format!("{} MB", trimmed(value / KIB / KIB))
    }
}

/// A bandwidth in GB/s (decimal, as bandwidths are quoted).
fn gigabytes_per_second(value: u64) -> String {
    trimmed(value as f64 / 1e9)
}

/// Up to three decimals, without trailing zeros: `6`, `0.375`, `112.5`.
fn trimmed(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_and_bandwidths_read_plainly() {
        assert_eq!(bytes(6 << 20), "6 MB");
        assert_eq!(bytes(384 << 10), "384 KB");
        assert_eq!(bytes(3 << 19), "1.5 MB");
        assert_eq!(gigabytes_per_second(900_000_000_000), "900");
        assert_eq!(gigabytes_per_second(56_250_000_000), "56.25");
    }

    #[test]
    fn a_chiplet_gpus_sizes_say_their_chiplets_and_bisection() {
        let size = |chiplets: u32| ScaleSize {
            sms: 64 * chiplets,
            factor: 16 / chiplets,
            llc_bytes: 0,
            llc_slices: 64 * chiplets,
            noc_bytes_per_second: 0,
            dram_bytes_per_second: 0,
            channels: 8 * chiplets,
            l1_bytes: None,
            l1_mshrs: None,
            warps_per_sm: 48,
            chiplets,
            bisection_bytes_per_second: u64::from(chiplets / 2) * 900_000_000_000,
        };
        assert_eq!(sms_text(&size(4)), "256 (4 chiplets)");
        assert_eq!(channels_text(&size(4)), "32 (links 1800 GB/s bisection)");
        // A scale model of one chiplet is a monolithic GPU.
        assert_eq!((sms_text(&size(1)), channels_text(&size(1))), ("64".to_owned(), "8".to_owned()));
    }
}
