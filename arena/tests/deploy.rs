//! The deployment recipes in deploy/ (issue 28) are checked, not just kept: every Kubernetes
//! manifest parses as YAML, holds the kinds the recipe promises with the fields that matter
//! (images, ports, the Secret's keys, the autoscaler's metric), and every command line in them
//! uses only flags the programs really accept, read from their own `--help`; the Slurm script
//! passes `bash -n` and runs the worker with the flags it takes.

#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy")
}

/// Every document of every manifest, with the file it came from.
fn documents() -> Vec<(String, Yaml)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(deploy().join("k8s"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut docs = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let parsed =
            YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name} is not YAML: {e}"));
        for doc in parsed {
            assert!(!doc["kind"].is_badvalue(), "{name}: a document without a kind");
            docs.push((name.clone(), doc));
        }
    }
    docs
}

fn text(y: &Yaml) -> &str {
    y.as_str().unwrap_or_else(|| panic!("not a string: {y:?}"))
}

fn list(y: &Yaml) -> &[Yaml] {
    y.as_vec().map_or(&[], Vec::as_slice)
}

/// The document of this kind and name.
fn find<'a>(docs: &'a [(String, Yaml)], kind: &str, name: &str) -> &'a Yaml {
    docs.iter()
        .map(|(_, d)| d)
        .find(|d| d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no {kind} named {name} in deploy/k8s"))
}

/// The one container of a workload.
fn container(workload: &Yaml) -> &Yaml {
    let containers = list(&workload["spec"]["template"]["spec"]["containers"]);
    assert_eq!(containers.len(), 1, "{workload:?}");
    &containers[0]
}

/// The flags (`--name`) a program's `--help` lists.
fn help_flags(program: &Path, args: &[&str]) -> Option<BTreeSet<String>> {
    let out = Command::new(program).args(args).arg("--help").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let help = String::from_utf8_lossy(&out.stdout);
    Some(
        help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| w.split(['=', '<']).next().unwrap().to_string())
            .collect(),
    )
}

fn arena_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena"))
}

/// The flags of `referee worker`, from the referee built beside the arena: the manifests must
/// not use any other.
fn worker_flags() -> BTreeSet<String> {
    let referee = arena_bin().with_file_name("referee");
    help_flags(&referee, &["worker"]).unwrap_or_else(|| {
        panic!("{} worker --help failed: run `cargo build --workspace --bins`", referee.display())
    })
}

/// The `--flags` among a command line's words.
fn flags_of(args: &[Yaml]) -> Vec<String> {
    args.iter()
        .map(|a| a.as_str().map_or_else(|| format!("{a:?}"), str::to_string))
        .filter(|a| a.starts_with("--"))
        .map(|a| a.split('=').next().unwrap().to_string())
        .collect()
}

fn value_after<'a>(args: &'a [Yaml], flag: &str) -> &'a str {
    let at =
        args.iter().position(|a| a.as_str() == Some(flag)).unwrap_or_else(|| panic!("no {flag}"));
    text(&args[at + 1])
}

#[test]
fn the_manifests_parse_and_hold_what_the_recipe_promises() {
    let docs = documents();
    let kinds: BTreeMap<&str, usize> = docs.iter().fold(BTreeMap::new(), |mut m, (_, d)| {
        *m.entry(text(&d["kind"])).or_default() += 1;
        m
    });
    for kind in ["Deployment", "Service", "StatefulSet", "Secret", "HorizontalPodAutoscaler"] {
        assert!(kinds.contains_key(kind), "no {kind} in deploy/k8s: {kinds:?}");
    }
    for (file, d) in &docs {
        assert!(d["apiVersion"].as_str().is_some(), "{file}: a document without apiVersion");
        assert!(d["metadata"]["name"].as_str().is_some(), "{file}: a document without a name");
    }

    // The Secret holds every key the others read.
    let secret = find(&docs, "Secret", "aluette-secrets");
    let keys: BTreeSet<&str> = secret["stringData"].as_hash().unwrap().keys().map(text).collect();
    let mut wanted = BTreeSet::new();
    for (_, d) in &docs {
        collect_secret_keys(d, &mut wanted);
    }
    assert!(!wanted.is_empty());
    for key in &wanted {
        assert!(keys.contains(key.as_str()), "the Secret lacks {key}");
    }
    let url = text(&secret["stringData"]["database-url"]);
    assert!(url.starts_with("postgres://"), "{url}");

    // The server: arena serve on Postgres (DATABASE_URL), its ports those of its Service.
    let server = find(&docs, "Deployment", "aluette-arena");
    let c = container(server);
    assert!(text(&c["image"]).starts_with("aluette:"), "{:?}", c["image"]);
    assert_eq!(list(&c["command"]).iter().map(text).collect::<Vec<_>>(), ["arena"]);
    let args = list(&c["args"]);
    assert_eq!(text(&args[0]), "serve");
    let env: BTreeMap<&str, &Yaml> =
        list(&c["env"]).iter().map(|e| (text(&e["name"]), e)).collect();
    assert_eq!(text(&env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["key"]), "database-url");
    let serve_help = help_flags(&arena_bin(), &["serve"]).expect("arena serve --help");
    for flag in flags_of(args) {
        assert!(serve_help.contains(&flag), "arena serve has no {flag}: {serve_help:?}");
    }
    let port_of = |listen: &str| listen.rsplit(':').next().unwrap().parse::<i64>().unwrap();
    let service = find(&docs, "Service", "aluette-arena");
    let service_ports: BTreeSet<i64> =
        list(&service["spec"]["ports"]).iter().map(|p| p["targetPort"].as_i64().unwrap()).collect();
    let listened: BTreeSet<i64> =
        [port_of(value_after(args, "--listen")), port_of(value_after(args, "--web"))].into();
    assert_eq!(service_ports, listened, "the Service's ports are the ones arena serve listens on");
    assert_eq!(
        service["spec"]["selector"],
        server["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"]
            .as_str()
            .map(|n| {
                let mut h = yaml_rust2::yaml::Hash::new();
                h.insert(Yaml::String("app.kubernetes.io/name".into()), Yaml::String(n.into()));
                Yaml::Hash(h)
            })
            .unwrap()
    );
    // The readiness probe is the bot door, which only the scheduler opens.
    assert_eq!(
        c["readinessProbe"]["tcpSocket"]["port"].as_i64(),
        Some(port_of(value_after(args, "--listen")))
    );

    // The workers: referee worker at the server's web port, scaled on the queue's depth.
    let workers = find(&docs, "Deployment", "aluette-worker");
    let w = container(workers);
    assert_eq!(w["image"], c["image"], "one image for the server and its workers");
    assert_eq!(list(&w["command"]).iter().map(text).collect::<Vec<_>>(), ["referee"]);
    let wargs = list(&w["args"]);
    assert_eq!(text(&wargs[0]), "worker");
    let known = worker_flags();
    let used: BTreeSet<String> = flags_of(wargs).into_iter().collect();
    for flag in ["--server", "--token-file", "--slots"] {
        assert!(used.contains(flag), "the worker is not given {flag}");
    }
    assert!(!used.contains("--token"), "a token on the command line is in every process list");
    for flag in &used {
        assert!(known.contains(flag), "referee worker has no {flag}: {known:?}");
    }
    let web_port = port_of(value_after(args, "--web"));
    assert_eq!(value_after(wargs, "--server"), format!("http://aluette-arena:{web_port}"));
    // The web server answers only the Hosts it is told are its own (DNS rebinding).
    assert_eq!(value_after(args, "--public-host"), "aluette-arena", "the workers' Host");
    assert!(value_after(wargs, "--slots").parse::<u32>().is_ok_and(|n| n >= 1));
    let hpa = find(&docs, "HorizontalPodAutoscaler", "aluette-worker");
    assert_eq!(text(&hpa["spec"]["scaleTargetRef"]["name"]), "aluette-worker");
    assert_eq!(text(&hpa["spec"]["scaleTargetRef"]["kind"]), "Deployment");
    let metrics = list(&hpa["spec"]["metrics"]);
    assert!(
        metrics.iter().any(|m| {
            let kind = text(&m["type"]);
            let key = if kind == "External" { "external" } else { "object" };
            m[key]["metric"]["name"].as_str() == Some("aluette_arena_queue_depth")
        }),
        "the autoscaler is not scaled on aluette_arena_queue_depth: {metrics:?}"
    );

    // Postgres: a StatefulSet with a volume, behind the Service the database URL names.
    let pg = find(&docs, "StatefulSet", "aluette-postgres");
    assert!(text(&container(pg)["image"]).starts_with("postgres:"));
    assert!(!list(&pg["spec"]["volumeClaimTemplates"]).is_empty());
    let pg_service = find(&docs, "Service", "aluette-postgres");
    let host = url.split('@').nth(1).unwrap().split(['/', ':']).next().unwrap();
    assert_eq!(host, text(&pg_service["metadata"]["name"]));
    assert_eq!(list(&pg_service["spec"]["ports"])[0]["port"].as_i64(), Some(5432));
}

/// Every `secretKeyRef` key and secret volume item in a document.
fn collect_secret_keys(y: &Yaml, out: &mut BTreeSet<String>) {
    match y {
        Yaml::Hash(h) => {
            for (k, v) in h {
                if k.as_str() == Some("secretKeyRef") {
                    out.insert(text(&v["key"]).to_string());
                }
                if k.as_str() == Some("secret") {
                    for item in list(&v["items"]) {
                        out.insert(text(&item["key"]).to_string());
                    }
                }
                collect_secret_keys(v, out);
            }
        }
        Yaml::Array(a) => a.iter().for_each(|v| collect_secret_keys(v, out)),
        _ => {}
    }
}

#[test]
fn the_slurm_script_is_bash_and_runs_the_worker_with_its_flags() {
    let script = deploy().join("slurm/workers.sbatch");
    let status = Command::new("bash").arg("-n").arg(&script).status().unwrap();
    assert!(status.success(), "bash -n {}", script.display());
    let body = std::fs::read_to_string(&script).unwrap();
    assert!(body.lines().any(|l| l.starts_with("#SBATCH --array=")), "not a job array");
    let line = body
        .lines()
        .find(|l| l.trim_start().starts_with("exec ") && l.contains(" worker "))
        .expect("a line that execs the worker");
    let known = worker_flags();
    let used: Vec<&str> = line.split_whitespace().filter(|w| w.starts_with("--")).collect();
    for flag in ["--server", "--token-file", "--slots"] {
        assert!(used.contains(&flag), "the script does not give {flag}: {line}");
    }
    assert!(!used.contains(&"--token"), "a token on the command line is in every process list");
    for flag in used {
        assert!(known.contains(flag), "referee worker has no {flag}");
    }
}
