// The one script of the queue pages: it keeps a queue's page current without a reload. Twice a second it asks
// for the page's live part with the version it shows (If-None-Match); the service answers 304 while the queue
// has not changed, else the part, already escaped, which replaces the one shown. Without it the page still
// reads correctly, as of when it was loaded.
export const liveScriptPath = "/live.js";

export const liveScript = `"use strict";
(() => {
  const live = document.getElementById("live");
  if (live === null) return;
  let version = live.dataset.version || "";
  const refresh = async () => {
    try {
      const response = await fetch(location.pathname + "?part=live", {
        headers: { "if-none-match": version },
        credentials: "same-origin",
        cache: "no-store",
      });
      if (response.status === 200) {
        version = response.headers.get("etag") || "";
        live.innerHTML = await response.text();
        live.dataset.version = version;
      }
    } catch (error) {
      // The service restarting or the network gone: try again on the next turn.
    }
    setTimeout(refresh, 500);
  };
  setTimeout(refresh, 500);
})();
`;
