"""build.py: the dist it writes, its checks, and its static server."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
import build  # noqa: E402

pytestmark = pytest.mark.xdist_group("build")  # one worker: a site built once for the module


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return build.build(tmp_path_factory.mktemp("site") / "dist", quiet=True)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bundle_mjs(dist: Path) -> dict:
    text = (dist / "bundle.mjs").read_text()
    return json.loads(text[text.index("export default ") + len("export default "):].rstrip().rstrip(";"))


def test_lock_matches_core_info_and_files(dist):
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    core = build.fetch_pyodide(build.load_bundle())
    assert lock["info"] == json.loads((core / "pyodide-lock.json").read_text())["info"]
    # The lock has what loadPackage installs: wheels with native code, and the app's own.
    assert set(lock["packages"]) == {"pydantic-core", "sitewalk"}
    for key, entry in lock["packages"].items():
        path = dist / entry["file_name"]
        assert path.exists(), key
        assert entry["sha256"] == sha256(path), key
        assert entry["install_dir"] == "site" and entry["package_type"] == "package"
        for dep in entry["depends"]:
            assert dep in lock["packages"], (key, dep)


def test_pure_packages_ship_as_one_archive_with_its_integrity(dist):
    bundle = build.load_bundle()
    meta = bundle_mjs(dist)
    archive = meta["archive"]
    pure = {build.canonical(w["name"]) for w in bundle["wheels"]} - {"pydantic-core"}
    assert set(archive["packages"]) == pure
    assert set(meta["packages"]) == pure | {"pydantic-core", "sitewalk"}  # all of them (the bare baseline)
    assert meta["wheels"] == ["pydantic-core", "sitewalk"]
    pairs = ((archive["file"], archive["integrity"]), (archive["metadata"], archive["metadataIntegrity"]))
    for file, integrity in pairs:
        digest = base64.b64encode(hashlib.sha256((dist / file).read_bytes()).digest()).decode()
        assert integrity == "sha256-" + digest, file
    code = zipfile.ZipFile(dist / archive["file"]).namelist()  # with the rest: what the app never imports
    code += zipfile.ZipFile(dist / meta["sitePackagesRest"]["file"]).namelist()
    metadata = zipfile.ZipFile(dist / archive["metadata"]).namelist()
    for spec in bundle["wheels"]:
        if build.canonical(spec["name"]) not in pure:
            continue
        for module in spec["imports"]:  # bytecode only, importable in place
            assert f"{module}/__init__.pyc" in code or f"{module}.pyc" in code, module
        dist_info = f"{spec['name'].replace('-', '_')}-{spec['version']}.dist-info/METADATA"
        assert dist_info in metadata and dist_info not in code, dist_info
    assert not any(n.endswith(".py") for n in code)
    assert not any(n.endswith("RECORD") for n in metadata)
    assert archive["path"].endswith("site-packages.zip") and archive["sitePackages"].endswith("site-packages")


def test_preloads_are_exactly_what_the_boot_fetches(dist):
    html = (dist / "index.html").read_text()
    meta = bundle_mjs(dist)
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    wheels = [e["file_name"] for e in lock["packages"].values()]
    for href in [meta["archive"]["file"], meta["archive"]["metadata"]] + wheels:
        assert f'<link rel="preload" href="{href}" as="fetch" crossorigin>' in html, href


def test_pinned_downloads_are_verified():
    bundle = build.load_bundle()
    for spec in bundle["wheels"]:
        path = build.fetch_wheel(spec, bundle)
        assert sha256(path) == spec["sha256"], spec["file"]


def test_app_wheel_is_the_browser_package_and_the_shared_models_with_their_data(dist):
    whl = dist / "wheels" / "sitewalk-0.1.0-py3-none-any.whl"
    names = zipfile.ZipFile(whl).namelist()
    assert "sitewalk/__init__.pyc" in names
    shared = [p.relative_to(ROOT / "py_src").as_posix() for p in (ROOT / "py_src" / "sitewalk_shared").rglob("*.py")]
    assert "sitewalk_shared/contracts/tools.py" in shared and "sitewalk_shared/ui_spec/model.py" in shared
    lazy = build.load_bundle()["app"]["lazy"]
    for name in [n for n in shared if n not in lazy]:  # every module the browser shares with the agent, as
        # bytecode in its source's place (but the lazy ones: test_the_apps_lazy_modules_ship_apart...)
        assert name + "c" in names, name
    # Bytecode only: a traceback keeps file and line (tests/e2e/test_boot_imports.py), not the source line.
    assert [n for n in names if n.endswith(".py") or "__pycache__" in n] == []
    assert {n.split("/", 1)[0] for n in names} == {"sitewalk", "sitewalk_shared", "sitewalk-0.1.0.dist-info"}
    assert zipfile.ZipFile(whl).read("sitewalk-0.1.0.dist-info/top_level.txt") == b"sitewalk\nsitewalk_shared\n"
    src = ROOT / "py_src" / "sitewalk"
    data = [p.relative_to(src.parent).as_posix() for p in src.rglob("*")
            if p.suffix in {".j2", ".html", ".json"} and "__pycache__" not in p.parts]
    for name in data:
        assert name in names, name
    assert "sitewalk-0.1.0.dist-info/RECORD" in names


def test_config_default_and_override(dist, tmp_path):
    assert json.loads((dist / "config.json").read_text()) == {
        "agentServerUrl": build.DEFAULT_SERVER_URL,
        "connectSrc": ["'self'", build.DEFAULT_SERVER_URL, "http://127.0.0.1:*", "http://localhost:*"]}
    other = build.build(tmp_path / "dist", server_url="https://agent.example.test", quiet=True)
    config = json.loads((other / "config.json").read_text())
    assert config == {"agentServerUrl": "https://agent.example.test",
                      "connectSrc": ["'self'", "https://agent.example.test"]}  # what the CSP allows, no more
    assert "connect-src 'self' https://agent.example.test;" in (other / "index.html").read_text()
    # Reproducible: what Python runs is byte for byte the same in both builds.
    shipped = sorted(p.relative_to(dist).as_posix() for p in (dist / "wheels").iterdir())
    assert shipped == sorted(p.relative_to(other).as_posix() for p in (other / "wheels").iterdir())
    for rel in shipped + ["pyodide/python_stdlib.zip", "pyodide-lock.json"]:
        assert sha256(dist / rel) == sha256(other / rel), rel


def test_shell_is_relative_and_has_a_strict_csp(dist):
    html = (dist / "index.html").read_text()
    assert 'id="boot-progress"' in html and 'id="boot-status"' in html
    assert 'id="boot-error"' in html and 'id="boot-retry"' in html and 'id="app"' in html
    assert "%SITEWALK_CSP%" not in html
    assert "script-src 'self' 'wasm-unsafe-eval'" in html
    assert "unsafe-inline" not in html and "'unsafe-eval'" not in html
    assert "<script>" not in html  # no inline script
    assert "require-trusted-types-for 'script'; trusted-types sitewalk\"" in html
    assert 'src="/' not in html and 'href="/' not in html  # relative URLs only (sub-path deploys)


def test_service_worker_precaches_everything_but_itself_and_the_rest_archives(dist):
    text = (dist / "sw.js").read_text()
    manifest = json.loads(text.split("/*__PRECACHE__*/", 1)[1].split("/*__END__*/", 1)[0])
    files = {p.relative_to(dist).as_posix() for p in dist.rglob("*")
             if p.is_file() and not p.name.startswith(".") and p.name != "sw.js" and p.suffix not in (".br", ".gz")}
    lazy = [bundle_mjs(dist)[key]["file"] for key in ("stdlibRest", "sitePackagesRest", "appRest")]
    assert manifest["lazy"] == lazy  # cached when first fetched, never precached
    for file in lazy:  # ... and only when its bytes are the build's (the worker checks them against this)
        assert manifest["integrity"][file] == "sha256-" + base64.b64encode(
            hashlib.sha256((dist / file).read_bytes()).digest()).decode(), file
    assert set(manifest["files"]) == files - set(lazy) | {"./"}
    assert len(manifest["version"]) == 16


def test_bench_pages_are_not_part_of_the_site(dist):
    assert (ROOT / "web" / "bench" / "bare.html").exists()
    assert not (dist / "bench").exists()


def test_every_archive_is_stored_so_http_compression_applies(dist):
    archives = list(dist.rglob("*.zip")) + list(dist.rglob("*.whl"))
    assert len(archives) >= 5
    for archive in archives:
        with zipfile.ZipFile(archive) as zf:
            assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}, archive.name


def test_precompressed_siblings_decode_to_the_file_and_are_smaller(dist):
    import gzip

    import brotli  # type: ignore[import-not-found,unused-ignore]

    served = [p for p in dist.rglob("*") if p.is_file() and p.suffix not in (".br", ".gz") and p.name[0] != "."]
    big = [p for p in served if p.stat().st_size > 100_000]
    assert {p.name for p in big} >= {"pyodide.asm.wasm", "python_stdlib.zip", "site-packages.zip"}
    for path in served:
        br, gz = path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")
        if path in big:
            assert br.exists() and gz.exists(), path.name
        if br.exists():
            assert br.stat().st_size < path.stat().st_size and brotli.decompress(br.read_bytes()) == path.read_bytes()
        if gz.exists():
            assert gz.stat().st_size < path.stat().st_size and gzip.decompress(gz.read_bytes()) == path.read_bytes()


def test_the_stdlib_is_split_into_what_the_app_imports_and_the_rest(dist):
    core = build.fetch_pyodide(build.load_bundle()) / "python_stdlib.zip"
    whole = {n.removesuffix("c") for n in zipfile.ZipFile(core).namelist() if not n.endswith("/")}
    boot = {n.removesuffix("c") for n in zipfile.ZipFile(dist / "pyodide/python_stdlib.zip").namelist()
            if not n.endswith("/")}
    rest_meta = bundle_mjs(dist)["stdlibRest"]
    rest_file = dist / rest_meta["file"]
    rest = {n.removesuffix("c") for n in zipfile.ZipFile(rest_file).namelist() if not n.endswith("/")}
    finder = rest_meta["finder"] + ".py"
    assert boot - {finder} | rest == whole and not boot & rest  # every file once
    # found by importing the app: what it and Pyodide use is at boot, what nothing imports is not
    assert {"json/__init__.py", "asyncio/__init__.py", "typing.py", "_pyodide/__init__.py"} <= boot
    assert {"doctest.py", "pydoc.py", "unittest/__init__.py", "_pyrepl/__init__.py"} <= rest
    # Pyodide's Python side counts by what the boot runs of it (loadPackage installing the wheels
    # imports tarfile and importlib.metadata), not as a whole: its console and http are never imported
    assert {"pyodide/_package_loader.py", "tarfile.py", "importlib/metadata/__init__.py"} <= boot
    assert {"pyodide/console.py", "pyodide/http/__init__.py", "rlcompleter.py"} <= rest
    assert "pkgutil.py" in rest  # the closure run's own imports do not count
    assert rest_meta["sha256"] == sha256(rest_file)
    assert "doctest" in rest_meta["modules"] and "email.mime.text" in rest_meta["modules"]
    assert rest_meta["file"] not in (dist / "index.html").read_text()  # never preloaded


def test_the_pure_packages_are_split_into_what_the_app_imports_and_the_rest(dist):
    meta = bundle_mjs(dist)
    boot_file, rest_meta = dist / meta["archive"]["file"], meta["sitePackagesRest"]
    rest_file = dist / rest_meta["file"]
    boot = {n for n in zipfile.ZipFile(boot_file).namelist() if not n.endswith("/")}
    rest = {n for n in zipfile.ZipFile(rest_file).namelist() if not n.endswith("/")}
    assert boot and rest and not boot & rest
    # what the app imports, and what their functions import later, is at boot; what nothing imports is not
    assert {"pydantic/main.pyc", "pydantic/_internal/_generate_schema.pyc", "jinja2/environment.pyc",
            "markupsafe/__init__.pyc", "jsonpatch.pyc", "pydantic/py.typed"} <= boot
    assert {"pydantic/v1/__init__.pyc", "pydantic/mypy.pyc", "micropip/__init__.pyc"} <= rest
    assert not any(n.endswith(".pyi") for n in boot)  # stubs: nothing imports them
    assert rest_meta["sha256"] == sha256(rest_file) and rest_meta["path"].endswith("site-packages-rest.zip")
    assert {"pydantic.v1", "pydantic.v1.main", "micropip"} <= set(rest_meta["modules"])
    assert rest_meta["file"] not in (dist / "index.html").read_text()  # never preloaded


def test_the_apps_lazy_modules_ship_apart_from_its_wheel_fetched_at_their_first_import(dist):
    """Device tracing (`lazy` in pyproject's app bundle): none of it in the wheel every visit loads; all of it,
    as bytecode, in an archive of its own that the rest finder fetches when an import first needs it."""
    lazy = build.load_bundle()["app"]["lazy"]
    assert "sitewalk/tracing/" in lazy
    wheel = set(zipfile.ZipFile(dist / "wheels" / "sitewalk-0.1.0-py3-none-any.whl").namelist())
    meta = bundle_mjs(dist)["appRest"]
    rest_file = dist / meta["file"]
    rest = {n for n in zipfile.ZipFile(rest_file).namelist() if not n.endswith("/")}
    src = ROOT / "py_src"
    tracing = {p.relative_to(src).as_posix() + "c" for p in (src / "sitewalk" / "tracing").glob("*.py")}
    assert tracing and tracing <= rest and "sitewalk/bridge/boot_marks.pyc" in rest
    assert "sitewalk_shared/contracts/device_trace.pyc" in rest
    assert not rest & wheel and not any(n.startswith("sitewalk/tracing/") for n in wheel)
    assert "sitewalk/base/trace_hooks.pyc" in wheel  # the seam stays: it is what does nothing when off
    assert meta["sha256"] == sha256(rest_file) and meta["finder"] == "_sitewalk_lazy_stdlib"
    assert {"sitewalk.tracing", "sitewalk.tracing.recorder", "sitewalk.bridge.boot_marks"} <= set(meta["modules"])
    assert meta["file"] not in (dist / "index.html").read_text()  # never preloaded


def test_scan_flags_foreign_origins(dist, tmp_path):
    assert build.scan_dist(dist) == []
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.js").write_text('fetch("https://cdn.example.test/lib.js")')
    (bad / "y.html").write_text('<script src="//cdn.example.test/a.js"></script>')
    problems = build.scan_dist(bad)
    assert any("https://cdn.example.test/lib.js" in p for p in problems)
    assert any("protocol-relative" in p for p in problems)


def test_stale_when_an_input_changes(dist, tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    for p in (ROOT / "web").rglob("*"):
        if p.is_file():
            (web / p.relative_to(ROOT / "web")).parent.mkdir(parents=True, exist_ok=True)
            (web / p.relative_to(ROOT / "web")).write_bytes(p.read_bytes())
    out = build.build(tmp_path / "dist", web=web, quiet=True)
    assert not build.is_stale(out, web=web)
    time.sleep(0.01)
    css = web / "app.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    os.utime(css, (time.time() + 5, time.time() + 5))
    assert build.is_stale(out, web=web)
    (web / "extra.txt").write_text("new file")
    assert build.is_stale(out, web=web)


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), b""


@pytest.mark.parametrize("base", ["/", "/sitewalk/"])
def test_static_server_types_and_base_path(dist, base):
    with build.serve_static(dist, 0, base=base) as site:
        assert site.url.endswith(base)
        status, ctype, body = _get(site.url)
        assert status == 200 and ctype.startswith("text/html") and b"Sitewalk" in body
        assert _get(site.url + "pyodide/pyodide.asm.wasm")[1] == "application/wasm"
        assert _get(site.url + "pyodide/pyodide.mjs")[1].startswith("text/javascript")
        assert _get(site.url + "boot.js")[1].startswith("text/javascript")
        assert _get(site.url + "manifest.webmanifest")[1] == "application/manifest+json"
        assert _get(site.url + "icon-192.png")[1] == "image/png"
        if base != "/":
            assert _get(f"http://127.0.0.1:{site.port}/")[0] == 404


def test_app_url_carries_the_server():
    url = build.app_url("http://127.0.0.1:8000/", "http://127.0.0.1:2024")
    assert url == "http://127.0.0.1:8000/?server=http://127.0.0.1:2024"


def test_a_failing_stage_leaves_no_staging_folder_and_dist_untouched(dist, tmp_path, monkeypatch):
    import shutil

    out = tmp_path / "dist"
    shutil.copytree(dist, out)
    before = {p.relative_to(out).as_posix(): sha256(p) for p in out.rglob("*") if p.is_file()}
    names = [name for name, _ in build.STAGES]
    middle = names.index("fill index")  # the wheels, the lock and web/ are already in the staging folder

    def broken(site):
        assert (site.staging / "pyodide-lock.json").exists() and (site.staging / "index.html").exists()
        raise build.BuildError("injected failure")

    stages = list(build.STAGES)
    stages[middle] = ("fill index", broken)
    monkeypatch.setattr("sitewalk_build.assemble.STAGES", stages)
    made: list[Path] = []  # this build's own folders (another worker may be building into .cache meanwhile)
    real_mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*args, **kwargs):
        made.append(Path(real_mkdtemp(*args, **kwargs)))
        return str(made[-1])

    monkeypatch.setattr("sitewalk_build.assemble.tempfile.mkdtemp", recording_mkdtemp)
    with pytest.raises(build.BuildError, match="injected failure"):
        build.build(out, quiet=True)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no .dist-staging-*, .dist-old-*
    after = {p.relative_to(out).as_posix(): sha256(p) for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert any(p.name.startswith("scratch-") for p in made)
    assert [p for p in made if p.exists()] == []  # the scratch folder went too


def test_stages_are_named_and_in_order():
    names = [name for name, _ in build.STAGES]
    assert names[:5] == ["copy core", "pack wheels", "compile bytecode", "split stdlib", "split site packages"]
    assert names.index("precompress") > names.index("fill precache")  # siblings of the final files
    assert names[-2:] == ["check origins", "write stamp"]  # nothing is stamped that was not scanned
    assert len(set(names)) == len(names)


def test_the_bytecode_programs_are_files_of_the_package():
    from sitewalk_build import precompile

    assert precompile.COMPILER.is_file() and precompile.DRIVER.is_file()
    compile(precompile.COMPILER.read_text(), str(precompile.COMPILER), "exec")  # valid Python on its own
    assert "runPython" in precompile.DRIVER.read_text()


def test_third_party_bytecode_has_no_docstrings_and_the_apps_keeps_its_classes(dist):
    """Third-party Python is compiled with optimize=2 (assemble.THIRD_PARTY_OPTIMIZE); the app is not:
    its pydantic models' docstrings are the JSON-schema descriptions of the tool manifest."""
    bundle = build.load_bundle()
    downloaded = {w["name"]: zipfile.ZipFile(build.fetch_wheel(w, bundle)) for w in bundle["wheels"]}
    site = zipfile.ZipFile(dist / bundle_mjs(dist)["archive"]["file"])
    core = zipfile.ZipFile(next((dist / "wheels").glob("pydantic_core-*.whl")))
    for shipped, source, module, doc in (
            (site, downloaded["pydantic"], "pydantic/main.py", b"A base class for creating Pydantic models."),
            (core, downloaded["pydantic-core"], "pydantic_core/core_schema.py", b"Base class for schema")):
        assert doc in source.read(module) and doc not in shipped.read(module + "c"), module
    app = zipfile.ZipFile(dist / "wheels" / "sitewalk-0.1.0-py3-none-any.whl")
    tools = app.read("sitewalk_shared/contracts/tools.pyc")
    assert b"The fields of a draft that the inspector writes" in tools  # a model's: its schema's description
    # The app's modules and functions lose theirs (nothing reads them), but a command line's module.
    assert b"Headless tool contracts" not in tools
    assert b"ValueError naming" not in app.read("sitewalk/base/seconds.pyc")
    assert b"Command line: check or render a UI spec file" in app.read("sitewalk/ui/__main__.pyc")
    # The stdlib likewise: its functions lose their docstrings, its classes keep theirs.
    stdlib = zipfile.ZipFile(dist / "pyodide" / "python_stdlib.zip")
    assert b"Serialize ``obj`` to a JSON formatted" not in stdlib.read("json/__init__.pyc")
    assert b"Subclass of ValueError with the following" in stdlib.read("json/decoder.pyc")


def test_what_the_runtime_never_reads_is_not_shipped_but_every_license_is(dist):
    """sitewalk_build/unread.py: METADATA bodies, stubs and SBOMs stay out; licenses ship."""
    import email.parser

    from sitewalk_build.digests import record_hash

    metadata = zipfile.ZipFile(dist / bundle_mjs(dist)["archive"]["metadata"])
    pydantic = metadata.read("pydantic-2.14.4.dist-info/METADATA")
    assert len(pydantic) < 5_000 and b"\n\n" not in pydantic  # headers only (144 KB with its body)
    headers = email.parser.BytesParser().parsebytes(pydantic)
    assert (headers["Name"], headers["Version"]) == ("pydantic", "2.14.4")
    assert "pydantic-core==2.50.5" in headers.get_all("Requires-Dist")
    assert "pydantic-2.14.4.dist-info/licenses/LICENSE" in metadata.namelist()
    with zipfile.ZipFile(next((dist / "wheels").glob("pydantic_core-*.whl"))) as core:
        names = core.namelist()
        assert [n for n in names if n.endswith(".pyi") or "/sboms/" in n] == []
        assert "pydantic_core-2.50.5.dist-info/licenses/LICENSE" in names
        assert b"\n\n" not in core.read("pydantic_core-2.50.5.dist-info/METADATA")
        record = core.read("pydantic_core-2.50.5.dist-info/RECORD").decode().splitlines()
        rows = {row.split(",")[0]: row for row in record}
        assert set(rows) == set(names)  # the RECORD lists what the wheel holds, no more
        for name in names:
            if not name.endswith("RECORD"):
                assert rows[name] == f"{name},{record_hash(core.read(name))},{core.getinfo(name).file_size}"
    code = zipfile.ZipFile(dist / bundle_mjs(dist)["archive"]["file"]).namelist()
    code += zipfile.ZipFile(dist / bundle_mjs(dist)["sitePackagesRest"]["file"]).namelist()
    assert [n for n in code if n.endswith(".pyi")] == []
