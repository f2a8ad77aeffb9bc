// A press on Start before Python is ready (classic script, no module: it runs as soon as the page is parsed).
//
// The first screen is pre-rendered into index.html at build time, so the inspector can type and press Start
// while Pyodide still boots. This keeps the press: the status line says "starting…", and the app, once it
// has attached to the page, takes the press (window.sitewalkFirstPress.take(), sitewalk/bridge/dom.py) and
// runs it, once. From then on the app's own listener answers Start and this one stays silent.
"use strict";
(() => {
  let pressed = false;
  let taken = false;
  window.sitewalkFirstPress = {
    listening: performance.now(), // when a press on Start is first kept (the first usable input)
    pressedAt: undefined, // performance.now() of the first press kept (device tracing's Start span)
    takenAt: undefined, // when the app took it
    take() {
      taken = true;
      if (pressed) this.takenAt = performance.now();
      document.getElementById("sw-start")?.removeAttribute("aria-busy");
      const was = pressed;
      pressed = false;
      return was;
    },
  };
  const start = document.getElementById("sw-start");
  if (!start) return;
  start.addEventListener("click", () => {
    if (taken) return;
    if (!pressed) window.sitewalkFirstPress.pressedAt = performance.now();
    pressed = true; // pressed twice is still one start
    start.setAttribute("aria-busy", "true");
    const status = document.getElementById("sw-status");
    if (status) {
      status.textContent = "starting…";
      status.dataset.error = "0";
    }
  });
})();
