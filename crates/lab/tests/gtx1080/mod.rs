//! Accel-Sim's GTX 1080 `accelsim-config`, the directory beside the
//! vectoradd anchor trace: a real config far from every preset (a 4-KB
//! instruction cache that is not perfect, loads that skip the L1, BookSim).

use warplab_lab::GpuConfig;

/// The directory's three files, read by the directory rule.
pub fn config() -> GpuConfig {
    let file = |name: &str, text: &str| (name.to_owned(), text.to_owned());
    warplab_lab::read_config_dir(&[
        file("gpgpusim.config", include_str!("../../../config/test_data/gtx1080/gpgpusim.config")),
        file("gpgpusim.trace.config", include_str!("../../../config/test_data/gtx1080/gpgpusim.trace.config")),
        file("config_fermi_islip.icnt", include_str!("../../../config/test_data/gtx1080/config_fermi_islip.icnt")),
    ])
    .expect("the GTX 1080 config reads")
}
