//! `warplab sweep --slurm` through a real one-node Slurm started here:
//! `munged` with a key made for the test, `slurmctld` and `slurmd` on
//! loopback ports, with their own `slurm.conf` and state under the target
//! directory (`ProctrackType=proctrack/linuxproc`, `TaskPlugin=task/none`,
//! no cgroups). The sweep's CSV must equal the local `--jobs 1` and
//! `--jobs 2` runs' except the host-time column; a task cancelled before it
//! runs leaves its point missing, and submitting again completes the sweep.
//! The daemons are stopped by their pid files however the test ends.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The repository root, where the sweep's relative paths start.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// A one-node cluster, its daemons stopped on drop.
struct Cluster {
    /// `slurm.conf`, the controller's state, the logs and the sweep's files.
    base: PathBuf,
    /// The Unix sockets (munge's, and slurmd's in its spool directory), under
    /// the system's temporary directory: a socket's path must fit in 108
    /// bytes, which a clone's target directory need not.
    sockets: PathBuf,
    conf: PathBuf,
}

fn run(command: &mut Command) -> Output {
    let program = format!("{command:?}");
    let output = command.output().unwrap_or_else(|e| {
        panic!("{program}: {e} (the Slurm test needs Debian's slurm-wlm and munge: apt-get install slurm-wlm munge)")
    });
    assert!(output.status.success(), "{program}: {}", String::from_utf8_lossy(&output.stderr));
    output
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

fn user() -> String {
    let output = run(Command::new("id").arg("-un"));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

impl Cluster {
    fn start() -> Self {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("slurm-{}", std::process::id()));
        let sockets = std::env::temp_dir().join(format!("warplab-slurm-{}", std::process::id()));
        for dir in [&base, &sockets] {
            let _ = std::fs::remove_dir_all(dir);
        }
        for dir in [base.join("state"), base.join("log"), sockets.join("munge"), sockets.join("spool")] {
            std::fs::create_dir_all(dir).expect("the cluster's directories");
        }
        let cluster = Cluster { conf: base.join("slurm.conf"), base, sockets };
        cluster.start_munge();
        std::fs::write(&cluster.conf, cluster.config()).expect("slurm.conf");
        run(Command::new("slurmctld").arg("-f").arg(&cluster.conf));
        run(Command::new("slurmd").arg("-f").arg(&cluster.conf).args(["-N", "localhost"]));
        cluster.wait_for("the node to come up", || {
            let output = cluster.command("sinfo").args(["-h", "-o", "%t"]).output().ok()?;
            String::from_utf8_lossy(&output.stdout).trim().starts_with("idle").then_some(())
        });
        cluster
    }

    fn start_munge(&self) {
        let munge = self.sockets.join("munge");
        let key = munge.join("munge.key");
        run(Command::new("mungekey").arg("--create").arg(format!("--keyfile={}", key.display())).arg("--force"));
        run(Command::new("munged")
            .arg(format!("--socket={}", munge.join("munge.socket").display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
            .arg(format!("--log-file={}", munge.join("munged.log").display()))
            .arg(format!("--seed-file={}", munge.join("munge.seed").display()))
            .arg("--force"));
    }

    fn config(&self) -> String {
        let at = |name: &str| self.base.join(name).display().to_string();
        let socket = |name: &str| self.sockets.join(name).display().to_string();
        let user = user();
        let (ctld_port, slurmd_port) = (free_port(), free_port());
        format!(
            "ClusterName=warplabtest\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort={ctld_port}\n\
             SlurmdPort={slurmd_port}\nSlurmUser={user}\nSlurmdUser={user}\nAuthType=auth/munge\n\
             AuthInfo=socket={}\nCredType=cred/munge\nStateSaveLocation={}\nSlurmdSpoolDir={}\n\
             SlurmctldPidFile={}\nSlurmdPidFile={}\nSlurmctldLogFile={}\nSlurmdLogFile={}\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nSchedulerType=sched/backfill\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nMpiDefault=none\nReturnToService=2\n\
             MinJobAge=600\nNodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n\
             PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
            socket("munge/munge.socket"),
            at("state"),
            socket("spool"),
            at("slurmctld.pid"),
            at("slurmd.pid"),
            at("log/slurmctld.log"),
            at("log/slurmd.log"),
        )
    }

    /// A Slurm command (or `warplab`) that talks to this cluster.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf).current_dir(ROOT);
        command
    }

    fn warplab(&self, args: &[&str]) -> (i32, String, String) {
        let output = self.command(env!("CARGO_BIN_EXE_warplab")).args(args).output().expect("warplab runs");
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
    }

    fn wait_for<T>(&self, what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
        let started = Instant::now();
        loop {
            if let Some(value) = ready() {
                return value;
            }
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "waited 3 minutes for {what}; logs in {}",
                self.base.display()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits until no job is queued or running.
    fn wait_until_idle(&self) {
        self.wait_for("the jobs to end", || {
            let output = self.command("squeue").args(["-h", "-o", "%i"]).output().ok()?;
            (output.status.success() && output.stdout.iter().all(u8::is_ascii_whitespace)).then_some(())
        });
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let pid_files =
            [self.base.join("slurmd.pid"), self.base.join("slurmctld.pid"), self.sockets.join("munge/munged.pid")];
        let pids: Vec<String> = pid_files
            .iter()
            .filter_map(|file| std::fs::read_to_string(file).ok())
            .map(|p| p.trim().to_owned())
            .collect();
        for pid in &pids {
            let _ = Command::new("kill").arg(pid).status();
        }
        // The daemons write as they stop: remove their sockets once they are gone.
        let started = Instant::now();
        while pids.iter().any(|pid| Path::new("/proc").join(pid).exists())
            && started.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_dir_all(&self.sockets);
    }
}

/// The CSV without its host-time column.
fn without_wall_time(text: &str) -> String {
    let header: Vec<&str> = text.lines().next().unwrap_or_default().split(',').collect();
    let wall = header.iter().position(|h| *h == "sim_wall_s").expect("a sim_wall_s column");
    assert_eq!(wall, header.len() - 1, "the host time is the last column");
    text.lines().map(|line| line.rsplit_once(',').map_or(line, |(rest, _)| rest)).collect::<Vec<_>>().join("\n")
}

const SWEEP: [&str; 12] = [
    "sweep",
    "--config",
    "mdm-pascal-28sm",
    "--gen",
    "vecadd:size=2",
    "--gen",
    "bfs:size=2",
    "--vary",
    "-gpgpu_scheduler=gto,lrr",
    "--vary",
    "-gpgpu_cache:dl1=N:64:128:6,L:L:m:N:H,A:32:8,8;N:64:128:6,L:L:m:N:H,A:64:8,8;N:64:128:6,L:L:m:N:H,A:128:8,8",
    "--simulate",
];

#[test]
fn a_sweep_through_slurm_equals_the_local_one_and_completes_after_a_cancelled_task() {
    let cluster = Cluster::start();
    let scratch = cluster.base.join("out");
    std::fs::create_dir_all(&scratch).unwrap();
    let file = |name: &str| scratch.join(name).display().to_string();

    let mut local = Vec::new();
    for jobs in ["1", "2"] {
        let csv = file(&format!("jobs{jobs}.csv"));
        let (code, stdout, stderr) = cluster.warplab(&[&SWEEP[..], &["--jobs", jobs, "--csv", &csv]].concat());
        assert_eq!(code, 0, "{stdout}{stderr}");
        local.push(without_wall_time(&std::fs::read_to_string(&csv).unwrap()));
    }
    assert_eq!(local[0], local[1], "--jobs 1 and --jobs 2");
    assert_eq!(local[0].lines().count(), 1 + 12, "two workloads × two schedulers × three MSHR counts");

    let (dir, csv) = (file("sweep"), file("slurm.csv"));
    let submit = [&SWEEP[..], &["--csv", &csv, "--slurm", &dir, "--max-parallel", "1"]].concat();
    let (code, stdout, stderr) = cluster.warplab(&submit);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let array = stdout.split("job array ").nth(1).and_then(|rest| rest.split_whitespace().next()).expect("a job id");
    // The last task waits behind eleven others (one at a time): cancel it.
    run(cluster.command("scancel").arg(format!("{array}_11")));
    cluster.wait_until_idle();
    let collect_log = std::fs::read_dir(Path::new(&dir).join("slurm/logs"))
        .unwrap()
        .flatten()
        .find(|entry| entry.file_name().to_string_lossy().starts_with("collect-"))
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .expect("the collect job ran after the array, although a task was cancelled");
    assert!(collect_log.contains("missing: point 11"), "{collect_log}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 1 + 11);

    let (code, stdout, stderr) = cluster.warplab(&submit);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("12 point(s), 1 to run"), "{stdout}");
    cluster.wait_until_idle();
    assert_eq!(without_wall_time(&std::fs::read_to_string(&csv).unwrap()), local[0], "Slurm and the local run");

    let (code, stdout, _) = cluster.warplab(&submit);
    assert_eq!(code, 0);
    assert!(stdout.contains("every point"), "{stdout}");
    let other = [&SWEEP[..8], &["-gpgpu_scheduler=gto"], &SWEEP[9..], &["--csv", &csv, "--slurm", &dir]].concat();
    let (code, _, stderr) = cluster.warplab(&other);
    assert_eq!(code, 2);
    assert!(stderr.contains("another sweep") && stderr.contains("the varied settings"), "{stderr}");
}
