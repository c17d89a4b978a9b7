// The topology page: reads the /v1 API with fetch() and draws nodes, bonds, ports and VIFs.
// Every value from the API reaches the DOM as text (textContent / text nodes), never as HTML.
"use strict";

(() => {
  // The newest version the server serves, read once from GET /v1/ (its one declaration is
  // the server's api/microversion.py).
  let apiVersion = null;
  const DRY_RUN_HEADER = "X-Metalwire-Dry-Run";
  // An address may carry a user name and password (http://user:pass@host/ui/): fetch() refuses
  // URLs with them and the page must never show them, so every URL is built without.
  const address = new URL(document.URL); // location.href hides them, document.URL does not
  if (address.username || address.password) {
    // The browser keeps the credentials it logged in with; the address no longer shows them.
    location.replace(withoutCredentials(address));
    return;
  }
  const UI = withoutCredentials(new URL(".", document.baseURI)); // .../ui/
  const ROOT = new URL("..", UI); // the server's root, under any root path
  const PHYSNET_COLOURS = 8;

  /** ``url`` without its user name and password. */
  function withoutCredentials(url) {
    const clean = new URL(url);
    clean.username = "";
    clean.password = "";
    return clean;
  }

  /** ``text`` with the userinfo of any URL in it removed (an error may quote a URL). */
  function hideCredentials(text) {
    return String(text).replace(/(\/\/)[^/@\s]*@/g, "$1");
  }

  // -- DOM -------------------------------------------------------------------------------

  /** An element; attributes as given, children as nodes or text. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  /** A table cell that names its column (shown as the label when rows stack on a phone). */
  function cell(label, cls, ...content) {
    return h("td", { "data-label": label, class: cls }, h("div", { class: "v" }, content));
  }

  const enc = encodeURIComponent;
  // Built by trait-based networking for its VIF (API 1.111): the detach deletes it.
  const DYNAMIC_TITLE = "dynamic portgroup: built by trait-based networking for its VIF; detaching the VIF deletes it and frees its member ports";
  const main = () => document.getElementById("main");

  function setMain(...children) {
    main().replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  }

  // -- API -------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  function faultMessage(data, resp) {
    if (data && typeof data.error_message === "string") {
      try {
        const inner = JSON.parse(data.error_message);
        return inner.faultstring || inner.description || inner.title || data.error_message;
      } catch (_) {
        return data.error_message;
      }
    }
    return `${resp.status} ${resp.statusText || "error"}`;
  }

  /** One API call: path relative to the server root ("v1/...") or absolute ("/v1/..."). */
  async function serverVersion() {
    if (apiVersion === null) {
      apiVersion = fetch(new URL("v1/", ROOT), {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        cache: "no-store",
      })
        .then((resp) => resp.json())
        .then((body) => body.version.version)
        .catch((err) => {
          apiVersion = null; // asked again by the next call
          throw err;
        });
    }
    return apiVersion;
  }

  async function api(method, path, body, extraHeaders) {
    const headers = {
      "X-OpenStack-Ironic-API-Version": await serverVersion(),
      Accept: "application/json",
      ...(extraHeaders || {}),
    };
    const init = { method, headers, credentials: "same-origin", cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const url = path.startsWith("/") ? new URL(path, location.origin) : new URL(path, ROOT);
    const resp = await fetch(url, init);
    if (resp.status === 204) return { status: 204, body: null };
    const text = await resp.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (!resp.ok) throw new ApiError(resp.status, faultMessage(data, resp));
    return { status: resp.status, body: data };
  }

  /** Every item of a collection, following its ``next`` links on this origin. */
  async function listAll(path, key) {
    let items = [];
    let next = path;
    while (next) {
      const { body } = await api("GET", next);
      items = items.concat((body && body[key]) || []);
      if (body && body.next) {
        const link = new URL(body.next, ROOT);
        next = link.pathname + link.search;
      } else {
        next = null;
      }
    }
    return items;
  }

  // -- what the records mean -----------------------------------------------------------------

  function vifOf(item) {
    const internal = item.internal_info || {};
    const extra = item.extra || {};
    return internal.tenant_vif_port_id || extra.vif_port_id || null;
  }

  function shortUuid(uuid) {
    return uuid ? uuid.slice(0, 8) : "";
  }

  function hash(text) {
    let value = 2166136261;
    for (let i = 0; i < text.length; i++) {
      value ^= text.charCodeAt(i);
      value = Math.imul(value, 16777619) >>> 0;
    }
    return value;
  }

  /** A physical network as a coloured chip with its name (the colour is never the only cue). */
  function physnetChip(physnet) {
    if (!physnet) {
      return h("span", { class: "physnet physnet-none", title: "no physical network set: any" }, "any physnet");
    }
    const colour = hash(physnet) % PHYSNET_COLOURS;
    return h(
      "span",
      { class: `physnet pn-${colour}`, title: `physical network ${physnet}` },
      h("span", { class: "swatch", "aria-hidden": "true" }),
      physnet,
    );
  }

  function stateBadge(state) {
    const value = state || "none";
    let tone = "neutral";
    if (value === "active") tone = "good";
    else if (value === "available") tone = "info";
    else if (/fail|error/.test(value)) tone = "bad";
    else if (/wait|ing$/.test(value)) tone = "warn";
    return h("span", { class: `badge tone-${tone}`, title: "provision state" }, value);
  }

  function vifChip(vif) {
    return h("span", { class: "vif", title: `VIF ${vif}` }, h("span", { class: "vif-label" }, "VIF"), vif);
  }

  function freeChip(text) {
    return h("span", { class: "free" }, text || "free");
  }

  function when(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso || "";
    return date.toISOString().replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "").replace("Z", " UTC");
  }

  function errorBox(error) {
    const status = error instanceof ApiError ? `${error.status}: ` : "";
    let hint = null;
    if (error instanceof ApiError && error.status === 401) {
      hint = "The server asks for credentials; reload the page to log in.";
    } else if (error instanceof ApiError && error.status === 403) {
      hint = "Your credentials do not allow this.";
    }
    const message = hideCredentials(error.message);
    return h("div", { class: "error", role: "alert" }, status + message, hint && h("div", { class: "hint" }, hint));
  }

  // -- routing ---------------------------------------------------------------------------

  function route() {
    const rel = location.pathname.startsWith(UI.pathname) ? location.pathname.slice(UI.pathname.length) : "";
    const match = /^nodes\/([^/]+)\/?$/.exec(rel);
    if (match) return showNode(decodeURIComponent(match[1]));
    return showNodeList();
  }

  function navigate(href) {
    history.pushState(null, "", href);
    route();
    window.scrollTo(0, 0);
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[data-route]");
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(link.href);
  });
  window.addEventListener("popstate", route);

  const nodeHref = (ident) => new URL(`nodes/${enc(ident)}`, UI).toString();

  // -- node list -------------------------------------------------------------------------
  // One page at a time from metalwire's node summaries (the nodes with their port, portgroup
  // and VIF counts, in one request per page); the search runs on the server too.

  const PAGE_SIZE = 50;
  const SEARCH_DELAY_MS = 250; // typing pauses this long before the server is asked

  function summariesPath(query) {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (query) params.set("q", query);
    return `v1/metalwire/node_summaries?${params}`;
  }

  /** One page: its node summaries and the path of the next page (null after the last). */
  async function loadSummaries(path) {
    const { body } = await api("GET", path);
    let next = null;
    if (body && body.next) {
      const link = new URL(body.next, ROOT);
      next = link.pathname + link.search;
    }
    return { nodes: (body && body.nodes) || [], next };
  }

  const MATCH_LABELS = {
    port_address: "MAC",
    portgroup_address: "MAC",
    vif: "VIF",
    port_uuid: "port",
    portgroup_uuid: "bond",
    portgroup_name: "bond",
  };

  /** Why a node is in the search's answer, when its name or UUID does not show it already. */
  function matchedText(matched) {
    const parts = (matched || []).filter((m) => MATCH_LABELS[m.field]).map((m) => `${MATCH_LABELS[m.field]} ${m.value}`);
    return parts.length ? `matched ${parts.join(", ")}` : null;
  }

  function summaryRow(summary) {
    const label = summary.name || summary.uuid;
    const how = matchedText(summary.matched);
    return h(
      "tr",
      { "data-node": summary.uuid },
      cell(
        "Name",
        "name",
        h("a", { href: nodeHref(summary.name || summary.uuid), "data-route": true }, label),
        summary.maintenance && h("span", { class: "badge tone-warn" }, "maintenance"),
        how && h("div", { class: "matched" }, how),
      ),
      cell("UUID", "mono uuid", summary.uuid),
      cell("Provision state", null, stateBadge(summary.provision_state)),
      cell("Network interface", null, h("span", { class: "iface" }, summary.network_interface || "—")),
      cell("Ports", "num", summary.ports),
      cell("Portgroups", "num", summary.portgroups, summary.dynamic_portgroups > 0 && h("span", { class: "muted dynamic-count", title: DYNAMIC_TITLE }, ` (${summary.dynamic_portgroups} dynamic)`)),
      cell("VIFs", "num", summary.vifs),
      cell("Physical networks", "physnets", (summary.physical_networks || []).map(physnetChip)),
    );
  }

  function countText(shown, query, more) {
    const nodes = `${shown} node${shown === 1 ? "" : "s"}`;
    if (query) return `${nodes} match${shown === 1 ? "es" : ""}${more ? ", more to load" : ""}`;
    return more ? `${nodes} shown, more to load` : nodes;
  }

  function showNodeList() {
    document.title = "Nodes · metalwire";
    const params = new URLSearchParams(location.search);
    const search = h("input", {
      id: "search",
      type: "search",
      placeholder: "Search by name, UUID, MAC or VIF id",
      "aria-label": "Search nodes by name, UUID, MAC or VIF id",
      autocomplete: "off",
      spellcheck: "false",
      value: params.get("q") || "",
    });
    const count = h("span", { class: "count", role: "status" });
    const body = h("tbody", {}, h("tr", {}, h("td", { colspan: 8, class: "loading" }, "Loading nodes…")));
    const more = h("div", { class: "more" });
    const table = h(
      "table",
      { class: "nodes" },
      h("thead", {}, h("tr", {}, ["Name", "UUID", "Provision state", "Network interface", "Ports", "Portgroups", "VIFs", "Physical networks"].map((t) => h("th", { scope: "col" }, t)))),
      body,
    );
    let shown = 0;
    let latest = 0; // each load's number: an answer to anything but the latest is dropped

    const load = async (path, query, append) => {
      const mine = ++latest;
      let result;
      try {
        result = await loadSummaries(path);
      } catch (error) {
        if (mine !== latest) return;
        if (!append) body.replaceChildren();
        more.replaceChildren(errorBox(error));
        return;
      }
      if (mine !== latest) return;
      if (!append) {
        body.replaceChildren();
        shown = 0;
      }
      body.append(...result.nodes.map(summaryRow));
      shown += result.nodes.length;
      if (!shown) {
        body.append(h("tr", {}, h("td", { colspan: 8, class: "empty" }, query ? "No node matches this search." : "No nodes enrolled yet.")));
      }
      count.textContent = countText(shown, query, Boolean(result.next));
      if (!result.next) {
        more.replaceChildren();
        return;
      }
      const button = h("button", { type: "button", class: "btn", id: "load-more" }, `Load ${PAGE_SIZE} more`);
      button.addEventListener("click", () => {
        button.disabled = true;
        button.textContent = "Loading…";
        load(result.next, query, true);
      });
      more.replaceChildren(button);
    };

    let pending = null;
    const run = () => {
      clearTimeout(pending);
      const query = search.value.trim();
      const url = new URL(location.href);
      if (query) url.searchParams.set("q", query);
      else url.searchParams.delete("q");
      history.replaceState(null, "", url);
      more.replaceChildren(); // the next page of the previous answer no longer applies
      load(summariesPath(query), query, false);
    };
    search.addEventListener("input", () => {
      clearTimeout(pending);
      pending = setTimeout(run, SEARCH_DELAY_MS);
    });
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") run();
    });
    setMain(
      h("div", { class: "page-head" }, h("h1", {}, "Nodes"), count),
      h("div", { class: "toolbar" }, search),
      h("div", { class: "table-wrap" }, table),
      more,
    );
    const query = search.value.trim();
    load(summariesPath(query), query, false);
  }

  // -- one node --------------------------------------------------------------------------

  async function loadNode(ident) {
    const base = `v1/nodes/${enc(ident)}`;
    const [node, ports, portgroups, vifs, history, offered] = await Promise.all([
      api("GET", base).then((r) => r.body),
      listAll(`${base}/ports/detail`, "ports"),
      listAll(`${base}/portgroups/detail`, "portgroups"),
      api("GET", `${base}/vifs`).then((r) => (r.body.vifs || []).map((v) => v.id)),
      api("GET", `${base}/history?detail=true&sort_dir=desc&limit=100`).then(
        (r) => r.body.history || [],
        (error) => error,
      ),
      serverFeatures(),
    ]);
    return { node, ports, portgroups, vifs, history, dryRun: offered.has("vif_attach_dry_run") };
  }

  function linkCell(port) {
    const link = port.local_link_connection || {};
    const parts = [];
    if (link.switch_id) parts.push(h("span", { class: "link-part" }, h("span", { class: "k" }, "switch"), h("code", {}, link.switch_id)));
    if (link.port_id) parts.push(h("span", { class: "link-part" }, h("span", { class: "k" }, "port"), h("code", {}, link.port_id)));
    if (link.switch_info) parts.push(h("span", { class: "link-part" }, h("span", { class: "k" }, "info"), h("code", {}, link.switch_info)));
    for (const [key, value] of Object.entries(link)) {
      if (!["switch_id", "port_id", "switch_info"].includes(key)) {
        parts.push(h("span", { class: "link-part" }, h("span", { class: "k" }, key), h("code", {}, typeof value === "string" ? value : JSON.stringify(value))));
      }
    }
    return parts.length ? parts : h("span", { class: "muted" }, "no link information");
  }

  /** What ironic-networking last set on the port's switch port, from the port's stored
   * internal_info.switchport_applied (no switch is asked); null when it set nothing. */
  function vlanOf(port) {
    const info = port.internal_info || {};
    if (!Object.prototype.hasOwnProperty.call(info, "switchport_applied")) return null;
    const set = info.switchport_applied;
    if (!set) return "no VLAN";
    if (set.mode === "access") return `access ${set.native_vlan}`;
    return `${set.mode} native ${set.native_vlan}, allowed ${(set.allowed_vlans || []).join(",")}`;
  }

  function vlanCell(port) {
    const vlan = vlanOf(port);
    return cell("VLAN", "vlan", vlan === null ? h("span", { class: "muted" }, "not set") : h("span", { class: "badge tone-info", title: "as set on the switch port by metalwire" }, vlan));
  }

  function portRow(port, view, role, withVlan) {
    const vif = vifOf(port);
    let vifCell;
    if (vif) vifCell = [vifChip(vif), detachButton(vif, view)];
    else if (role === "member" && view.bondVif) vifCell = h("span", { class: "muted" }, "bond's VIF");
    else if (role === "member") vifCell = h("span", { class: "muted" }, "via the bond");
    else vifCell = freeChip();
    return h(
      "tr",
      { class: `port ${vif ? "busy" : role === "member" ? "member" : "is-free"}`, "data-port": port.uuid, "data-mac": port.address },
      cell("MAC", "mono mac", h("span", { title: `port ${port.uuid}` }, port.address)),
      cell("Physical network", null, physnetChip(port.physical_network)),
      cell("Switch link", "link", linkCell(port)),
      cell("PXE", "pxe", port.pxe_enabled ? h("span", { class: "badge tone-info" }, "PXE") : h("span", { class: "muted" }, "no PXE")),
      withVlan ? vlanCell(port) : null,
      cell("VIF", "vif-cell", vifCell),
    );
  }

  function portTable(ports, view, role) {
    // the VLAN column only where metalwire sets switch ports (ironic-networking)
    const withVlan = ports.some((p) => vlanOf(p) !== null);
    const heads = ["MAC", "Physical network", "Switch link", "PXE", ...(withVlan ? ["VLAN"] : []), "VIF"];
    return h(
      "table",
      { class: "ports" },
      h("thead", {}, h("tr", {}, heads.map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, ports.map((p) => portRow(p, view, role, withVlan))),
    );
  }

  function bondCard(portgroup, members, view) {
    const vif = vifOf(portgroup);
    const dynamic = portgroup.dynamic_portgroup === true;
    const memberVif = members.some((p) => vifOf(p));
    const physnets = [...new Set(members.map((p) => p.physical_network || ""))];
    const state = vif ? [vifChip(vif), detachButton(vif, view)] : memberVif ? h("span", { class: "muted" }, "a member carries a VIF") : freeChip();
    const memberView = { ...view, bondVif: vif };
    return h(
      "section",
      { class: `card bond ${vif ? "busy" : memberVif ? "" : "is-free"}${dynamic ? " dynamic" : ""}`, "data-portgroup": portgroup.uuid, "data-dynamic": dynamic ? "true" : null },
      h(
        "header",
        { class: "card-head" },
        h(
          "div",
          { class: "card-title" },
          h("span", { class: "kind" }, dynamic ? "dynamic bond" : "bond"),
          h("h3", {}, portgroup.name || shortUuid(portgroup.uuid)),
          dynamic && h("span", { class: "badge tone-info badge-dynamic", title: DYNAMIC_TITLE }, "dynamic"),
          portgroup.mode && h("span", { class: "badge tone-neutral", title: "bonding mode" }, portgroup.mode),
          physnets.length === 1 && physnetChip(physnets[0]),
          physnets.length > 1 && h("span", { class: "badge tone-warn", title: "the members are on different physical networks" }, "mixed physnets"),
        ),
        h("div", { class: "card-state" }, state),
      ),
      h(
        "div",
        { class: "card-meta" },
        h("span", {}, h("span", { class: "k" }, "MAC "), h("span", { class: "mono" }, portgroup.address || "none")),
        h("span", {}, h("span", { class: "k" }, "UUID "), h("span", { class: "mono muted" }, portgroup.uuid)),
        h("span", { class: "muted" }, `${members.length} member${members.length === 1 ? "" : "s"}`),
      ),
      members.length ? portTable(members, memberView, "member") : h("p", { class: "muted pad" }, "No member ports: this bond cannot take a VIF."),
    );
  }

  function detachButton(vif, view) {
    const button = h("button", { type: "button", class: "btn btn-quiet", "data-detach": vif, "aria-label": `Detach VIF ${vif}` }, "Detach");
    let armed = false;
    button.addEventListener("click", async () => {
      if (!armed) {
        armed = true;
        button.textContent = "Confirm detach";
        button.classList.add("btn-danger");
        return;
      }
      button.disabled = true;
      try {
        await api("DELETE", `v1/nodes/${enc(view.ident)}/vifs/${enc(vif)}`);
        view.say(`VIF ${vif} detached.`, "good");
      } catch (error) {
        view.say(`Detaching VIF ${vif} failed: ${error.message}`, "bad");
      }
      await view.refresh();
    });
    button.addEventListener("blur", () => {
      if (armed && !button.disabled) {
        armed = false;
        button.textContent = "Detach";
        button.classList.remove("btn-danger");
      }
    });
    return button;
  }

  function targetLabel(data, uuid) {
    const portgroup = data.portgroups.find((pg) => pg.uuid === uuid);
    if (portgroup) return `${portgroup.dynamic_portgroup ? "dynamic bond" : "bond"} ${portgroup.name || shortUuid(uuid)}${portgroup.address ? ` (${portgroup.address})` : ""}`;
    const port = data.ports.find((p) => p.uuid === uuid);
    if (port) return `port ${port.address}${port.portgroup_uuid ? " (bond member)" : ""}`;
    return uuid;
  }

  function wiring(data, view) {
    const members = new Map(data.portgroups.map((pg) => [pg.uuid, []]));
    const standalone = [];
    for (const port of data.ports) {
      if (port.portgroup_uuid && members.has(port.portgroup_uuid)) members.get(port.portgroup_uuid).push(port);
      else standalone.push(port);
    }
    const placed = new Set([...data.ports, ...data.portgroups].map(vifOf).filter(Boolean));
    const elsewhere = data.vifs.filter((v) => !placed.has(v));
    const free = standalone.filter((p) => !vifOf(p)).length + data.portgroups.filter((pg) => !vifOf(pg) && !members.get(pg.uuid).some(vifOf) && members.get(pg.uuid).length).length;
    return h(
      "div",
      { class: "wiring", id: "wiring" },
      h("div", { class: "section-head" }, h("h2", {}, "Wiring"), h("span", { class: "muted" }, `${data.vifs.length} VIF${data.vifs.length === 1 ? "" : "s"} · ${free} free target${free === 1 ? "" : "s"}`)),
      data.portgroups.length === 0 && data.ports.length === 0 && h("p", { class: "muted card pad" }, "This node has no ports."),
      data.portgroups.map((pg) => bondCard(pg, members.get(pg.uuid), view)),
      standalone.length > 0 &&
        h(
          "section",
          { class: "card standalone" },
          h("header", { class: "card-head" }, h("div", { class: "card-title" }, h("span", { class: "kind" }, "NICs"), h("h3", {}, "Standalone ports"))),
          portTable(standalone, view, "standalone"),
        ),
      elsewhere.length > 0 &&
        h(
          "section",
          { class: "card" },
          h("header", { class: "card-head" }, h("div", { class: "card-title" }, h("h3", {}, "VIFs without a port shown"))),
          h("p", { class: "muted pad" }, "Listed by the node but on no port or portgroup above (an attach in progress?)."),
          h("ul", { class: "plain pad" }, elsewhere.map((v) => h("li", {}, vifChip(v), detachButton(v, view)))),
        ),
    );
  }

  function legend(data) {
    const physnets = [...new Set(data.ports.map((p) => p.physical_network || ""))].sort();
    if (!physnets.length) return null;
    return h("div", { class: "legend", "aria-label": "physical networks on this node" }, h("span", { class: "k" }, "Physical networks"), physnets.map(physnetChip));
  }

  function timeline(history) {
    if (history instanceof Error) return errorBox(history);
    if (!history.length) return h("p", { class: "muted" }, "Nothing recorded yet.");
    return h(
      "ol",
      { class: "timeline" },
      history.map((entry) =>
        h(
          "li",
          { class: `event sev-${(entry.severity || "info").toLowerCase()}` },
          h("div", { class: "event-time mono" }, when(entry.created_at)),
          h("div", { class: "event-text" }, entry.event),
          h(
            "div",
            { class: "event-meta" },
            entry.event_type && h("span", { class: "tag" }, entry.event_type),
            entry.severity && entry.severity !== "INFO" && h("span", { class: "tag sev" }, entry.severity),
            entry.vif_id && h("span", {}, "VIF ", h("code", {}, entry.vif_id)),
            entry.result && h("span", {}, "result ", h("code", {}, entry.result)),
            entry.user && h("span", {}, "by ", entry.user),
          ),
        ),
      ),
    );
  }

  // -- attach, with the dry-run explanation first when the server gives one ----------------

  let features = null;

  /** What the server offers beyond Ironic's API (``GET /v1/metalwire``), asked once: a server
   * that does not answer it (Ironic: 404) offers nothing, so the page never sends a dry-run
   * header that a server would ignore and attach. */
  function serverFeatures() {
    if (!features) {
      features = api("GET", "v1/metalwire").then(
        (r) => new Set(Array.isArray(r.body && r.body.features) ? r.body.features : []),
        () => {
          features = null; // ask again next time: this may have been a passing failure
          return new Set();
        },
      );
    }
    return features;
  }

  /** Whether an answer to a dry-run request is one: a 200 whose body says so. */
  function isPreview(answer) {
    return answer.status === 200 && Boolean(answer.body) && answer.body.dry_run === true;
  }

  function asUuid(value) {
    if (!value) return null;
    if (typeof value === "string") return value;
    return value.uuid || value.port_uuid || value.portgroup_uuid || null;
  }

  /** Whether a dry-run answer says the attach would fail (no confirm button then). */
  function wouldFail(body) {
    return Boolean(body && body.error);
  }

  function errorText(error) {
    if (!error) return null;
    if (typeof error === "string") return error;
    return error.message || error.type || JSON.stringify(error);
  }

  /** The dry-run answer as text: where the VIF would go, or why it would fail, and for every
   * other port and portgroup why not (metalwire's ``X-Metalwire-Dry-Run`` answer). */
  function explanation(body, data) {
    const out = [];
    if (!body || typeof body !== "object") return h("p", {}, "The server gave no explanation.");
    const chosen = asUuid(body.target);
    const failure = errorText(body.error);
    if (failure) {
      out.push(h("p", { class: "chosen" }, h("strong", {}, "This attach would fail: "), failure));
    } else if (body.target && body.target.type === "dynamic_portgroup") {
      const ports = (body.target.ports || []).map((uuid) => targetLabel(data, uuid)).join(", ");
      out.push(h("p", { class: "chosen" }, "Would build ", h("strong", { title: DYNAMIC_TITLE }, "a dynamic bond"), ` of ${ports} and put the VIF on it.`));
    } else if (chosen) {
      out.push(h("p", { class: "chosen" }, "Would go on ", h("strong", {}, targetLabel(data, chosen)), "."));
    } else if (body.chooses_target === false) {
      const iface = body.network_interface ? ` (${body.network_interface})` : "";
      out.push(h("p", { class: "chosen" }, `Would succeed; the network interface${iface} puts the VIF on no port.`));
    }
    if (Array.isArray(body.physical_networks) && body.physical_networks.length) {
      out.push(h("p", { class: "physnets" }, "The VIF's physical networks: ", body.physical_networks.map(physnetChip)));
    }
    const rows = [];
    for (const item of Array.isArray(body.refused) ? body.refused : []) {
      if (!item || typeof item !== "object") continue;
      const uuid = asUuid(item);
      const why = item.message || item.reason;
      rows.push(
        h(
          "li",
          {},
          h("strong", {}, uuid ? targetLabel(data, uuid) : "a candidate"),
          item.reason && h("span", { class: "tag" }, item.reason),
          why && h("div", { class: "why" }, typeof why === "string" ? why : JSON.stringify(why)),
        ),
      );
    }
    if (rows.length) out.push(h("p", { class: "k" }, "Not chosen"), h("ul", { class: "refused" }, rows));
    out.push(...switchChanges(body.switch_changes, data));
    if (!out.length) {
      out.push(h("dl", { class: "raw" }, Object.entries(body).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v))])));
    }
    return out;
  }

  function switchportText(set) {
    if (!set || typeof set !== "object") return "no VLAN";
    if (set.mode === "access") return `access ${set.native_vlan}`;
    return `${set.mode} native ${set.native_vlan}, allowed ${(set.allowed_vlans || []).join(",")}`;
  }

  /** The dry run's switch changes (ironic-networking): per switch, each port it would move,
   * from and to, and the commands it would send (nothing is sent). */
  function switchChanges(switches, data) {
    if (!Array.isArray(switches)) return [];
    if (!switches.length) return [h("p", { class: "switch-none muted" }, "No switch port would change.")];
    const out = [h("p", { class: "k" }, "Switch changes (nothing sent)")];
    for (const sw of switches) {
      const ports = Array.isArray(sw.ports) ? sw.ports : [];
      out.push(
        h(
          "div",
          { class: "switch-change", "data-switch": sw.switch },
          h("strong", {}, `switch ${sw.switch}`),
          h("span", { class: "muted" }, ` ${sw.device_type || ""}`),
          sw.commands_unavailable && h("div", { class: "why" }, sw.commands_unavailable),
          ports.map((port) =>
            h(
              "div",
              { class: "switch-port", "data-port-id": port.port_id },
              h("div", {}, h("code", {}, port.port_id), " ", targetLabel(data, port.port_uuid), ": ", switchportText(port.from), " → ", switchportText(port.to)),
              Array.isArray(port.commands) && h("pre", { class: "commands" }, port.commands.join("\n")),
            ),
          ),
        ),
      );
    }
    return out;
  }

  function attachPanel(data, view) {
    const vifInput = h("input", { id: "vif-id", type: "text", required: true, value: view.draft || "", placeholder: "VIF id (e.g. a Neutron port UUID)", autocomplete: "off", spellcheck: "false", "aria-label": "VIF id" });
    const target = h("select", { id: "vif-target", "aria-label": "Target" }, h("option", { value: "" }, "Automatic: metalwire chooses"));
    for (const pg of data.portgroups) {
      if (!vifOf(pg)) target.append(h("option", { value: `portgroup:${pg.uuid}` }, targetLabel(data, pg.uuid)));
    }
    for (const port of data.ports) {
      if (!port.portgroup_uuid && !vifOf(port)) target.append(h("option", { value: `port:${port.uuid}` }, targetLabel(data, port.uuid)));
    }
    // ironic-networking: the VIF may name its network (a VLAN, or a name the server maps)
    const network = data.node.network_interface === "ironic-networking" ? h("input", { id: "vif-network", type: "text", placeholder: "optional: VLAN ID or network name", autocomplete: "off", spellcheck: "false", "aria-label": "Network" }) : null;
    const noDryRun = !data.dryRun;
    const submit = h("button", { type: "submit", class: "btn btn-primary", id: "vif-submit" }, noDryRun ? "Attach" : "Preview");
    const result = h("div", { class: "attach-result", id: "attach-result", role: "status" });
    if (noDryRun) result.append(h("p", { class: "muted" }, "No preview available: this server does not explain placements (dry-run)."));

    const request = () => {
      const body = { id: vifInput.value.trim() };
      const [kind, uuid] = target.value.split(":");
      if (kind === "port") body.port_uuid = uuid;
      if (kind === "portgroup") body.portgroup_uuid = uuid;
      const named = network ? network.value.trim() : "";
      if (named) body.network = /^[0-9]+$/.test(named) ? Number(named) : named;
      return body;
    };
    const attach = async (body) => {
      try {
        await api("POST", `v1/nodes/${enc(view.ident)}/vifs`, body);
        view.say(`VIF ${body.id} attached.`, "good");
        view.draft = "";
      } catch (error) {
        view.say(`Attaching VIF ${body.id} failed: ${error.message}`, "bad");
        view.draft = body.id;
      }
      await view.refresh();
    };

    const form = h(
      "form",
      { class: "attach-form", id: "attach-form", novalidate: true },
      h("label", { for: "vif-id" }, "VIF id"),
      vifInput,
      h("label", { for: "vif-target" }, "Target"),
      target,
      network && h("label", { for: "vif-network" }, "Network"),
      network,
      h("div", { class: "actions" }, submit),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = request();
      if (!body.id) {
        result.replaceChildren(h("p", { class: "error" }, "Give the VIF's id."));
        vifInput.focus();
        return;
      }
      submit.disabled = true;
      result.replaceChildren(h("p", { class: "muted" }, "Working…"));
      if (noDryRun) {
        await attach(body);
        return;
      }
      let answer;
      try {
        answer = await api("POST", `v1/nodes/${enc(view.ident)}/vifs`, body, { [DRY_RUN_HEADER]: "true" });
      } catch (error) {
        result.replaceChildren(h("div", { class: "preview bad" }, h("p", {}, h("strong", {}, "This attach would fail: "), error.message)));
        submit.disabled = false;
        return;
      }
      if (!isPreview(answer)) {
        // The server did not honour the header after all: whatever it did is not a preview.
        const what = answer.status === 204 ? `attached VIF ${body.id}` : `may have attached VIF ${body.id}`;
        view.say(`No preview: the server answered ${answer.status} without a dry-run explanation and ${what}. The wiring below is as the server now has it.`, "warn");
        vifInput.value = "";
        await view.refresh();
        return;
      }
      if (wouldFail(answer.body)) {
        result.replaceChildren(h("div", { class: "preview bad" }, h("p", { class: "k" }, "Preview (nothing written)"), explanation(answer.body, data)));
        submit.disabled = false;
        return;
      }
      const confirm = h("button", { type: "button", class: "btn btn-primary", id: "vif-confirm" }, `Attach ${body.id}`);
      const cancel = h("button", { type: "button", class: "btn btn-quiet" }, "Cancel");
      confirm.addEventListener("click", async () => {
        confirm.disabled = true;
        cancel.disabled = true;
        await attach(body);
      });
      cancel.addEventListener("click", () => {
        result.replaceChildren();
        submit.disabled = false;
      });
      result.replaceChildren(h("div", { class: "preview" }, h("p", { class: "k" }, "Preview (nothing written yet)"), explanation(answer.body, data), h("div", { class: "actions" }, confirm, cancel)));
      submit.disabled = false;
    });
    return h("section", { class: "card pad attach", id: "attach" }, h("h2", {}, "Attach a VIF"), form, result);
  }

  async function showNode(ident) {
    document.title = `${ident} · metalwire`;
    setMain(h("p", { class: "loading" }, `Loading node ${ident}…`));
    const status = h("div", { class: "notice", id: "notice", role: "status", hidden: true });
    const view = {
      ident,
      draft: "",
      say(text, tone) {
        status.hidden = false;
        status.className = `notice tone-${tone || "info"}`;
        status.textContent = text;
      },
      async refresh() {
        let data;
        try {
          data = await loadNode(ident);
        } catch (error) {
          setMain(backLink(), errorBox(error));
          return;
        }
        draw(data);
      },
    };
    const draw = (data) => {
      const { node } = data;
      document.title = `${node.name || node.uuid} · metalwire`;
      const focusId = document.activeElement && document.activeElement.id;
      setMain(
        backLink(),
        h(
          "div",
          { class: "node-head" },
          h("div", {}, h("h1", {}, node.name || node.uuid), h("div", { class: "mono muted", title: "node UUID" }, node.uuid)),
          h(
            "div",
            { class: "facts" },
            fact("Provision state", stateBadge(node.provision_state)),
            fact("Network interface", h("span", { class: "iface" }, node.network_interface || "—")),
            fact("Power", node.power_state || "—"),
            node.maintenance && fact("Maintenance", h("span", { class: "badge tone-warn" }, node.maintenance_reason || "on")),
            h("button", { type: "button", class: "btn btn-quiet", onclick: () => view.refresh() }, "Refresh"),
          ),
        ),
        legend(data),
        status,
        h(
          "div",
          { class: "node-grid" },
          wiring(data, view),
          h("aside", { class: "side" }, attachPanel(data, view), h("section", { class: "card pad history", id: "history" }, h("h2", {}, "History"), timeline(data.history))),
        ),
      );
      const again = focusId && document.getElementById(focusId);
      if (again) again.focus();
    };
    await view.refresh();
  }

  function fact(label, value) {
    return h("div", { class: "fact" }, h("span", { class: "k" }, label), value);
  }

  function backLink() {
    return h("a", { href: UI.toString(), "data-route": true, class: "back" }, "← All nodes");
  }

  // -- start -----------------------------------------------------------------------------

  document.getElementById("server").textContent = ROOT.host;
  route();
})();
