"""Sitewalk's build tooling: build dist/ (the offline static site), serve it with an agent server, benchmark its boot.

``build.py`` at the repository root is the command line and re-exports the public names; the work is
done here, one concern a module:

    paths          where the inputs and outputs live
    errors         BuildError, AgentServerStartError, log()
    tools          node and npm found on PATH, or a MissingToolError naming them and how to install them
    digests        sha256 / subresource integrity / npm integrity, deterministic zip entries, commands
    bundle         [tool.sitewalk.bundle] of pyproject.toml, and the lock built from it
    fetch          the pinned Pyodide core and wheels, downloaded into .cache/ and verified
    wheels         the app's own wheel, and the pure wheels merged into one archive
    precompile     bytecode compiled with Pyodide under node (pyc_compiler.py, pyc_driver.mjs)
    stdlib_split   the stdlib cut into what the app imports (import_closure.py, run under Pyodide) and
                   the rest, fetched on demand by the finder of lazy_stdlib.py
    precompress    .br/.gz siblings of the site's files, where smaller
    policy         the Content-Security-Policy and the scan for foreign origins
    stale          when dist/ must be rebuilt (its stamp and inputs)
    assemble       the site assembled in named stages inside a staging folder
    agent_server   ``langgraph dev`` started and stopped
    no_tracing     LangSmith tracing off for the servers Sitewalk starts, said when the caller had it on
    process_group  a server's whole process group stopped (both kinds of agent server)
    durable        Aegra on Postgres (and Redis for two servers) started and stopped: ``serve --durable``;
                   durable_install (Postgres found, Aegra's Python >= 3.12 venv), durable_process (its parts)
    server_config  langgraph.json with CORS restricted to the site's origins: ``serve --allow-origin``
    static_server  dist/ over HTTP under any base path, answering from the precompressed siblings
    serve          the ``serve`` command (both servers)
    browser        headless Chromium on this project's machines
    bench          the boot benchmark (desktop and phone profiles); baseline: its bare Pyodide, outside dist/
    cli            the argument parser

Importing the package has no side effects.
"""
