//! The summary of `warplab config show --json` and the grouped view model.
#![cfg(not(target_arch = "wasm32"))]

use warplab_config::preset;

#[test]
fn qv100_summary_as_json() {
    let summary = preset("QV100").expect("preset").config().expect("reads").summary();
    let json = serde_json::to_value(&summary).expect("serializes");
    let expect = serde_json::json!({
        "n_sms": 80, "warp_size": 32, "core_clock_mhz": 1132.0, "max_threads_per_sm": 2048,
        "max_ctas_per_sm": 32, "regs_per_sm": 65536, "shmem_per_sm": 98304, "schedulers_per_sm": 4,
        "scheduler": "lrr", "n_mem_channels": 32, "n_sub_partitions": 64,
        "l1d": {"sets": 4, "line_size": 128, "assoc": 64, "sectored": true, "mshr_entries": 512, "mshr_max_merge": 8},
        "l2": {"sets": 32, "line_size": 128, "assoc": 24, "sectored": true, "mshr_entries": 192, "mshr_max_merge": 4},
    });
    for (key, value) in expect.as_object().expect("an object") {
        assert_eq!(&json[key], value, "{key}");
    }
    assert_eq!(json["unknown_options"], serde_json::json!([]));
    let unmodelled = json["unmodelled_options"].as_array().expect("a list");
    assert_eq!(unmodelled.len(), 23);
    assert_eq!(unmodelled[0], serde_json::json!({"name": "-gpgpu_ptx_instruction_classification", "value": "0"}));
}

#[test]
fn h100_summary_lists_its_unknown_options_with_values() {
    let summary = preset("H100").expect("preset").config().expect("reads").summary();
    let json = serde_json::to_value(&summary).expect("serializes");
    assert_eq!(json["unknown_options"][0], serde_json::json!({"name": "-gpgpu_opndcoll_model", "value": "1"}));
    assert_eq!(summary.chiplets, 2);
    let interpreted: Vec<&str> = summary.interpreted_options.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(interpreted, ["-gpgpu_chiplet_interleave", "-inter_chiplet_queue_size", "-inter_chiplet_queue_latency"]);
    let view = preset("H100").expect("preset").config().expect("reads").view();
    let chiplets = view.groups.iter().find(|g| g.title == "Chiplets").expect("a chiplet group");
    let queue = chiplets.rows.iter().find(|r| r.option == "-inter_chiplet_queue_size").expect("the queue row");
    assert_eq!(queue.value, "256 packets per L2 slice (10240 a link direction) (interpreted)");
    let interleave = chiplets.rows.iter().find(|r| r.option == "-warplab_chiplet_interleave_bytes").expect("a row");
    assert_eq!(interleave.value, "8 KB per chiplet");
    assert_eq!((summary.n_sms, summary.n_sub_partitions, summary.core_clock_mhz), (132, 80, 1980.0));
}

#[test]
fn grouped_view() {
    let view = preset("QV100").expect("preset").config().expect("reads").view();
    let titles: Vec<&str> = view.groups.iter().map(|g| g.title.as_str()).collect();
    assert_eq!(
        titles,
        ["Cores", "Schedulers", "Execution units", "L1/shared", "L2/partitions", "DRAM", "Interconnect", "Clocks"]
    );
    let find = |label: &str| {
        view.groups
            .iter()
            .flat_map(|g| &g.rows)
            .find(|r| r.label == label)
            .map(|r| (r.value.as_str(), r.option.as_str()))
    };
    assert_eq!(find("SMs"), Some(("80 (80 clusters x 1)", "-gpgpu_n_clusters+-gpgpu_n_cores_per_cluster")));
    assert_eq!(find("Policy"), Some(("lrr", "-gpgpu_scheduler")));
    assert_eq!(find("L2 total"), Some(("6 MB", "-gpgpu_cache:dl2")));
    assert_eq!(
        find("L1 data cache"),
        Some(("32 KB, 4 sets x 128 B x 64 ways, sectored, 512 MSHRs (merge 8), linear index", "-gpgpu_cache:dl1"))
    );
    assert_eq!(find("Specialized 3 (TENSOR)"), Some(("4 units, 2 / 2 cycles", "-specialized_unit_3")));
    assert_eq!(find("DRAM"), Some(("850 MHz", "-gpgpu_clock_domains")));
    let dram = view.groups.iter().find(|g| g.title == "DRAM").expect("a DRAM group");
    assert_eq!(dram.rows[0].value, "870.4 GB/s = 32 ch x 16 B x 1 chips x 2 x 850 MHz");
    let json = serde_json::to_string(&view).expect("serializes");
    assert!(json.starts_with("{\"groups\":[{\"title\":\"Cores\",\"rows\":[{\"label\":\"SMs\""));
}
