// Draws a koudian table snapshot (koudian/web/snapshot.py) as HTML. It
// decides no rule: every tile, meld, pond token and legal action comes
// from the engine's snapshot; this file only turns them into markup.
"use strict";

const KD = (() => {
  const L = {
    zh: {
      seat: "座", dealer: "庄", ting: "听", wall: "余牌", live: "可摸",
      wilds: "耗子", indicators: "翻牌", toAct: "轮到", pending: "问",
      turn: "出牌", discard: "打出", added_kong: "补杠", none: "—",
      score: "分", draws: "摸", replacement: "杠后摸", auto: "自动",
      win: "胡", pong: "碰", kong: "杠", pass: "过", leave: "离开",
      concealed_kong: "暗杠", exposed_kong: "明杠", ting_a: "听牌(扣)",
      discard_a: "打", deal: "发牌", end: "结束", from: "来自",
      settlement: "结算", payer: "付", payee: "收", amount: "数", reason: "原因",
      delta: "得失", result: "结果", exhausted: "流局", kong_draw: "杠流局",
      left: "离桌", self_draw: "自摸", patterns: "番种", hand: "局",
      revealed: "全部明牌", view: "视角", frame: "步", decision: "决策", tiles: "张", wind: "门风",
    },
    en: {
      seat: "Seat ", dealer: "dealer", ting: "ting", wall: "wall", live: "live",
      wilds: "wild", indicators: "indicator", toAct: "to act", pending: "asked",
      turn: "turn", discard: "discard", added_kong: "added kong", none: "—",
      score: "score", draws: "draws", replacement: "draws (kong)", auto: "auto",
      win: "win", pong: "pong", kong: "kong", pass: "pass", leave: "leave",
      concealed_kong: "concealed kong", exposed_kong: "exposed kong",
      ting_a: "ting (face down)", discard_a: "discards", deal: "deal",
      end: "end", from: "from", settlement: "Settlement", payer: "payer",
      payee: "payee", amount: "amount", reason: "reason", delta: "delta",
      result: "result", exhausted: "exhausted wall", kong_draw: "kong draw",
      left: "left", self_draw: "self-draw", patterns: "patterns", hand: "hand",
      revealed: "all revealed", view: "view", frame: "step", decision: "decision", tiles: "tiles", wind: "seat wind",
    },
  };
  const ARROW = ["▼", "▶", "▲", "◀"]; // bottom, right, top, left
  let TILES = {};
  let ACTIONS = [];
  let lang = "zh";
  // What the previous drawTable showed, to mark what changed since (a
  // discard, a meld, a draw) for a moment: a player follows each move.
  let prev = null;

  function setTiles(table) {
    TILES = {};
    table.forEach((t, i) => { TILES[t.n] = Object.assign({ i: i }, t); });
  }
  // The chosen language, kept: a page opened from this one (the replay
  // link passes ?lang=) or later (localStorage) opens in it.
  function setLang(v) {
    lang = v === "en" ? "en" : "zh";
    document.documentElement.lang = lang;
    try { localStorage.setItem("koudian.lang", lang); } catch (e) { /* a file:// or sandboxed page */ }
  }
  function initLang() {
    let v = null;
    try { v = new URLSearchParams(location.search).get("lang") || localStorage.getItem("koudian.lang"); } catch (e) { v = null; }
    if (v === "en" || v === "zh") setLang(v);
  }
  function setActions(table) { ACTIONS = table; }
  function action(i) { return typeof i === "number" ? ACTIONS[i] : i; }
  function t(key) { return (L[lang] && L[lang][key]) || key; }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }
  // A number as the pages show it: integers whole, others to 2 places,
  // null (a value the agent did not estimate, e.g. mc's unsearched
  // candidates) as a dash.
  function num(v) {
    if (v == null) return "–";
    return Number.isInteger(v) ? String(v) : v.toFixed(2);
  }
  function splitTiles(s) {
    // "123m45p" -> ["1m","2m","3m","4p","5p"]
    const out = [];
    let digits = [];
    for (const ch of s || "") {
      if (ch >= "0" && ch <= "9") digits.push(ch);
      else { digits.forEach((d) => out.push(d + ch)); digits = []; }
    }
    return out;
  }
  // A tile's name in words: 五万 in Chinese, 5m in English.
  function tileName(n) {
    if (n == null) return "?";
    const info = TILES[n];
    return lang === "zh" && info ? info.zh : n;
  }
  // A tile: an element whose face (tiles/*.svg) is its background; its
  // name is its label. opts.ting: an unseen face-down ting discard.
  function tile(n, opts) {
    opts = opts || {};
    const cls = ["t"];
    let label;
    if (n == null || n === "?") {
      cls.push(opts.ting ? "k-ting" : "back");
      label = opts.ting ? t("ting_a") : "?";
    } else {
      cls.push("k-" + n);
      const info = TILES[n];
      label = info ? `${n} ${info.zh}` : n;
      if (opts.wild) label += " · " + t("wilds");
    }
    if (opts.wild && n != null) cls.push("wild");
    if (opts.extra) cls.push(opts.extra);
    const data = opts.data ? ` data-tile="${n}" tabindex="0"` : "";
    return `<span class="${cls.join(" ")}" role="img" aria-label="${esc(label)}" title="${esc(label)}"${data}></span>`;
  }
  // A seat's wind: the dealer sits East, then South, West, North in
  // turn order (how players name the seats).
  const WINDS = { zh: "東南西北", en: "ESWN" };
  function seatName(s, st) {
    const d = st && st.dealer === s ? ` <em class="dealer">${t("dealer")}</em>` : "";
    const w = st && st.dealer != null ? `<em class="wind" title="${esc(t("wind"))}">${WINDS[lang][(s - st.dealer + 4) % 4]}</em>` : "";
    return `${w}<span class="who">${t("seat")}${s}</span>${d}`;
  }
  function meldHtml(m, showHidden, wilds, fresh) {
    const size = /kong/.test(m.kind) ? 4 : 3;
    const hide = m.hidden && !showHidden;
    const extra = fresh ? "fresh" : "";
    let tiles = "";
    for (let i = 0; i < size; i++) {
      const back = m.tile == null || hide || (m.kind === "concealed_kong" && (i === 0 || i === 3));
      tiles += back ? tile(null, { extra: extra }) : tile(m.tile, { wild: wilds.includes(m.tile), extra: extra });
    }
    const from = m.from != null && m.kind !== "concealed_kong" ? ` ←${m.from}` : "";
    return `<span class="meld" title="${esc(t(m.kind))}${from}">${tiles}<small>${esc(t(m.kind))}${from}</small></span>`;
  }
  function pondTokens(pond) { return (pond || "").match(/~?(?:\d[mpsz]|\?)\^?/g) || []; }
  // marks[i]: extra classes of the i-th token (fresh, last, claim).
  function pondHtml(pond, showDown, wilds, marks) {
    return pondTokens(pond).map((tok, i) => {
      let x = tok;
      const claimed = x.endsWith("^");
      if (claimed) x = x.slice(0, -1);
      const down = x.startsWith("~");
      if (down) x = x.slice(1);
      const extra = [claimed ? "claimed" : "", down ? "down" : "", marks[i] || ""].join(" ").trim();
      if (down && (!showDown || x === "?")) return tile(null, { ting: true, extra: extra });
      return tile(x, { wild: wilds.includes(x), extra: extra });
    }).join("");
  }
  function actionText(a) {
    const name = a.action === "ting" ? t("ting_a") : a.action === "discard" ? t("discard_a") : t(a.action);
    return a.tile ? `${name} ${tileName(a.tile)}` : name;
  }
  function eventText(e) {
    if (e.type === "deal") return t("deal");
    if (e.type === "draw") return `${t("seat")}${e.seat} ${e.replacement ? t("replacement") : t("draws")} ${tileName(e.tile)}`;
    if (e.type === "action") return `${t("seat")}${e.seat} ${actionText(e)}${e.auto ? " (" + t("auto") + ")" : ""}`;
    if (e.type === "end") return `${t("end")}: ${t(e.kind)}${e.tile ? " " + tileName(e.tile) : ""}`;
    return e.type;
  }
  // What changed since the previous drawing of the same hand: the seats
  // whose pond, melds or drawn tile are new, and who discarded last.
  function changes(st) {
    const now = st.seats.map((s) => ({ pond: pondTokens(s.pond).length, melds: s.melds.length, drawn: s.drawn }));
    const total = now.reduce((a, s) => a + s.pond + s.melds, 0);
    const same = prev && st.wall <= prev.wall && total >= prev.total;
    const out = { now: now, total: total, wall: st.wall, fresh: [null, null, null, null], last: null };
    if (same) {
      out.last = prev.last;
      now.forEach((s, i) => {
        const p = prev.now[i];
        out.fresh[i] = { pond: p.pond, melds: p.melds, drawn: s.drawn != null && s.drawn !== p.drawn };
        if (s.pond > p.pond) out.last = i;
      });
    }
    return out;
  }
  // opts.view: null (all revealed) or the seat whose view is drawn;
  // opts.clickable: the seat whose concealed tiles are buttons;
  // opts.bottom: seat at the bottom; opts.lastSeat: who discarded last
  // (else worked out from the previous drawing); opts.scores and
  // opts.scoreLabel: the scores shown (else st.scores); opts.note: a line
  // under the bottom hand (the play page's "click a tile"); opts.names and
  // opts.badges: per seat, a player's name and marks (HTML) by the seat's.
  function drawTable(st, opts) {
    opts = opts || {};
    const view = opts.view == null ? null : opts.view;
    const bottom = opts.bottom != null ? opts.bottom : view != null ? view : 0;
    const wilds = st.wilds || [];
    const pos = ["bottom", "right", "top", "left"];
    const ch = changes(st);
    const pend = st.pending || {};
    let last = opts.lastSeat !== undefined ? opts.lastSeat : ch.last;
    if (pend.kind === "discard" && pend.from != null) last = pend.from;
    ch.last = last;
    prev = ch;
    const scores = opts.scores || st.scores;
    // opts.result (the hand's result, at its end): the winners are marked.
    const winners = (opts.result && opts.result.winners) || [];
    const scoreLabel = opts.scoreLabel || t("score");
    let html = "";
    let ponds = "";
    for (let k = 0; k < 4; k++) {
      const s = (bottom + k) % 4;
      const seat = st.seats[s];
      const mine = view == null || view === s;
      const fr = ch.fresh[s];
      let hand = "";
      if (seat.hand != null && mine) {
        const tiles = splitTiles(seat.hand);
        // The drawn tile stands apart at the right end.
        let drawnIdx = -1;
        if (seat.drawn) drawnIdx = tiles.lastIndexOf(seat.drawn);
        tiles.forEach((x, i) => {
          if (i === drawnIdx) return;
          hand += tile(x, { wild: wilds.includes(x), data: opts.clickable === s });
        });
        if (drawnIdx >= 0) {
          const extra = "drawn" + (fr && fr.drawn ? " fresh" : "");
          hand += tile(seat.drawn, { wild: wilds.includes(seat.drawn), data: opts.clickable === s, extra: extra });
        }
      } else {
        for (let i = 0; i < seat.count; i++) hand += tile(null);
      }
      const melds = seat.melds.map((m, i) => meldHtml(m, mine && (view == null || view === s), wilds, fr && i >= fr.melds)).join("");
      const act = (st.to_act === s ? " acting" : "") + (winners.includes(s) ? " winner" : "");
      const won = winners.includes(s) ? `<em class="wonb">${t("win")}</em>` : "";
      const ting = seat.ting ? `<em class="tingb">${t("ting")}</em>` : "";
      const count = seat.hand != null && mine ? "" : `<span class="count">${seat.count} ${t("tiles")}</span>`;
      const note = k === 0 && opts.note ? `<div class="hintline">${opts.note}</div>` : "";
      // A room's page names its players and marks their seats (托管, offline).
      const player = (opts.names && opts.names[s] != null ? ` <span class="pname">${esc(opts.names[s])}</span>` : "") +
        (opts.badges && opts.badges[s] ? ` ${opts.badges[s]}` : "");
      html += `<div class="seat ${pos[k]}${act}" data-seat="${s}">
        <div class="name">${seatName(s, st)}${player} ${ting}${won}<span class="score" title="${esc(scoreLabel)}">${esc(scoreLabel)} ${scores[s]}</span>${count}</div>
        ${note}<div class="hand">${hand}</div><div class="melds">${melds}</div></div>`;
      const n = pondTokens(seat.pond).length;
      const marks = [];
      if (fr) for (let i = fr.pond; i < n; i++) marks[i] = "fresh";
      if (last === s && n > 0) {
        const claim = pend.kind === "discard" && pend.from === s;
        marks[n - 1] = ((marks[n - 1] || "") + (claim ? " claim" : " last")).trim();
      }
      ponds += `<div class="pond ${pos[k]}" data-seat="${s}">${pondHtml(seat.pond, view == null || view === s, wilds, marks)}</div>`;
    }
    const toAct = st.to_act == null ? t("none") : `${t("seat")}${st.to_act} ${ARROW[(st.to_act - bottom + 4) % 4]}`;
    let ask = "";
    if (pend.kind && pend.kind !== "none" && pend.kind !== "turn") {
      const pfrom = pend.from != null ? `${t("seat")}${pend.from} ` : "";
      const ptile = pend.tile ? " " + tile(pend.tile, { wild: wilds.includes(pend.tile), extra: "claim" }) : "";
      ask = `<div class="pend">${t("pending")}: ${pfrom}${t(pend.kind)}${ptile}</div>`;
    }
    const legal = st.legal && (view == null || view === st.to_act)
      ? `<div class="legal">${st.legal.map((i) => `<span class="la">${esc(actionText(action(i)))}</span>`).join(" ")}</div>` : "";
    const ind = splitTiles(st.indicators || "").map((x) => tile(x)).join("");
    const info = `<div class="info">
      <div class="turn">${st.done ? t("end") : `${t("toAct")} ${toAct}`}</div>
      <div>${t("wall")} <b class="wallcount">${st.wall}</b> · ${t("live")} ${st.live}</div>
      ${wilds.length ? `<div>${t("wilds")} ${wilds.map((x) => tile(x, { wild: true })).join("")}</div>` : ""}
      ${ind ? `<div>${t("indicators")} ${ind}</div>` : ""}
      ${ask}
      ${opts.showLegal === false ? "" : legal}
      ${opts.centerExtra || ""}</div>`;
    return `<div class="table">${html}<div class="center">${ponds}${info}</div></div>`;
  }
  function settlementHtml(r) {
    if (!r) return "";
    let head = `${t("result")}: <b>${esc(t(r.kind))}</b>`;
    if (r.winners && r.winners.length) {
      head += ` · ${t("win")} ${r.winners.map((w) => t("seat") + w).join(", ")}`;
      if (r.tile) head += ` ${tile(r.tile)}`;
      head += r.self_draw ? ` (${t("self_draw")})` : r.from != null ? ` ${t("from")} ${t("seat")}${r.from}` : "";
    }
    const pats = (r.patterns || []).map(([s, names]) => `<div>${t("seat")}${s} ${t("patterns")}: ${names.map(esc).join(", ") || t("none")}</div>`).join("");
    let rows = "";
    const st = r.settlement;
    if (st) {
      rows = st.payments.map(([a, b, n, why]) => `<tr><td>${a}</td><td>→ ${b}</td><td class="num">${n}</td><td>${esc(why)}</td></tr>`).join("");
    }
    const deltas = r.deltas.map((d, s) => `<td class="num delta" data-seat="${s}">${d > 0 ? "+" : ""}${d}</td>`).join("");
    return `<div class="settlement"><h3>${t("settlement")}</h3><div>${head}</div>${pats}
      <table class="pay"><tr><th>${t("payer")}</th><th>${t("payee")}</th><th>${t("amount")}</th><th>${t("reason")}</th></tr>${rows}</table>
      <table class="deltas"><tr>${[0, 1, 2, 3].map((s) => `<th>${t("seat")}${s}</th>`).join("")}</tr><tr>${deltas}</tr></table></div>`;
  }
  return {
    setTiles, setActions, action, drawTable, settlementHtml, eventText, actionText, tile, tileName, t, esc, num, splitTiles,
    reset() { prev = null; },
    setLang, initLang,
    get lang() { return lang; }, set lang(v) { lang = v; },
  };
})();
