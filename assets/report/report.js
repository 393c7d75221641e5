// officegym report: draws an episode when it is opened, and filters and searches the episode list.
// Texts are put into the page with textContent only (never innerHTML), so a transcript cannot inject markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var strings = data.strings;
  var episodes = data.episodes;
  var items = Array.prototype.slice.call(document.querySelectorAll("details.ep"));
  var texts = [];

  function text(ref) { return ref === null || ref === undefined ? "" : strings[ref]; }

  function el(tag, className, content) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (content !== undefined) { node.textContent = content; }
    return node;
  }

  function table(className, columns, rows) {
    var node = el("table", className);
    if (columns) {
      var head = node.appendChild(el("thead")).appendChild(el("tr"));
      columns.forEach(function (c) { head.appendChild(el("th", "", c)); });
    }
    var body = node.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var tr = body.appendChild(el("tr"));
      row.forEach(function (cell) { tr.appendChild(el("td", "", cell)); });
    });
    return node;
  }

  // A message is [role, content, tool_call_id, calls, reasoning] (report_data._message), texts by index.
  function message(m) {
    var role = m[0], content = text(m[1]), calls = m[3] || [];
    var error = role === "tool" && content.indexOf("Error:") === 0;
    var node = el("details", "msg role-" + role + (error ? " error" : ""));
    var title = role + (m[2] ? " · " + m[2] : "");
    if (role === "system") { title += " (" + content.length.toLocaleString("en") + " characters)"; }
    node.appendChild(el("summary", "", title));
    node.open = role !== "system";
    if (m[4] !== undefined && m[4] !== null) { node.appendChild(el("pre", "reasoning", text(m[4]))); }
    if (content) { node.appendChild(el("pre", "", content)); }
    calls.forEach(function (call) {
      var box = node.appendChild(el("div", "call"));
      box.appendChild(el("b", "", "→ " + call[0]));
      box.appendChild(el("span", "run", "  [" + call[2] + "]"));
      box.appendChild(el("pre", "", text(call[1])));
    });
    if (role === "assistant" && !content && !calls.length) {
      node.appendChild(el("pre", "run", "(no tool call: finish)"));
    }
    return node;
  }

  function render(ep) {
    var frag = document.createDocumentFragment();
    frag.appendChild(table("kv", null, ep.head.map(function (h) { return [h[0], text(h[1])]; })));
    if (ep.error !== null) {
      var infra = frag.appendChild(el("div", "infra"));
      infra.appendChild(el("b", "", "infrastructure error (not scored)"));
      infra.appendChild(el("pre", "", text(ep.error)));
    }
    if (ep.failures.rows.length) {
      frag.appendChild(el("h3", "", "where it fell short (" + ep.failures.rows.length + ")"));
      frag.appendChild(table("failures", ep.failures.columns,
        ep.failures.rows.map(function (row) { return row.map(text); })));
    }
    var transcript = frag.appendChild(el("details", "transcript"));
    transcript.open = true;
    transcript.appendChild(el("summary", "", "transcript (" + ep.messages.length + " messages)"));
    ep.messages.forEach(function (m) { transcript.appendChild(message(m)); });
    if (ep.grade.length) {
      var grade = frag.appendChild(el("details", "grade"));
      grade.appendChild(el("summary", "", "grade"));
      grade.appendChild(table("kv", null, ep.grade.map(function (g) { return [g[0], text(g[1])]; })));
    }
    return frag;
  }

  function open(item) {
    if (item.open && !item.dataset.drawn) {
      item.dataset.drawn = "1";
      item.querySelector(".body").appendChild(render(episodes[Number(item.dataset.i)]));
    }
  }

  // Everything a search can find in an episode, lower-cased once, on the first search.
  function haystack(i) {
    if (texts[i] === undefined) {
      var ep = episodes[i];
      var parts = [ep.key, ep.task, ep.tier, ep.outcome, ep.stop, text(ep.error)];
      ep.messages.forEach(function (m) {
        parts.push(text(m[1]), text(m[4]));
        (m[3] || []).forEach(function (c) { parts.push(c[0], text(c[1])); });
      });
      ep.failures.rows.forEach(function (row) { row.forEach(function (r) { parts.push(text(r)); }); });
      texts[i] = parts.join("\n").toLowerCase();
    }
    return texts[i];
  }

  function value(id) {
    var node = document.getElementById("filter-" + id);
    return node ? node.value : "";
  }

  function apply() {
    var wanted = { run: value("run"), tier: value("tier"), outcome: value("outcome"), task: value("task") };
    var query = value("search").trim().toLowerCase();
    var shown = 0;
    items.forEach(function (item, i) {
      var ok = Object.keys(wanted).every(function (k) { return !wanted[k] || item.dataset[k] === wanted[k]; });
      ok = ok && (!query || haystack(i).indexOf(query) >= 0);
      item.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent =
      shown.toLocaleString("en") + " of " + items.length.toLocaleString("en") + " episodes";
  }

  // A bar of a per-episode chart, or a link to #episode-N, opens that episode and brings it into view.
  function show(index) {
    var item = items[index];
    if (!item) { return; }
    item.hidden = false;
    item.open = true;
    open(item);
    item.scrollIntoView();
  }

  items.forEach(function (item) { item.addEventListener("toggle", function () { open(item); }); });
  document.querySelectorAll("rect[data-episode]").forEach(function (bar) {
    bar.addEventListener("click", function () { show(Number(bar.getAttribute("data-episode"))); });
  });
  function fromHash() {
    var found = /^#episode-(\d+)$/.exec(window.location.hash);
    if (found) { show(Number(found[1])); }
  }
  window.addEventListener("hashchange", fromHash);
  ["run", "tier", "outcome", "task", "search"].forEach(function (id) {
    var node = document.getElementById("filter-" + id);
    if (node) { node.addEventListener(id === "search" ? "input" : "change", apply); }
  });
  apply();
  fromHash();
}());
