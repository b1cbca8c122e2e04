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
      revealed: "全部明牌", view: "视角", frame: "步", decision: "决策",
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
      revealed: "all revealed", view: "view", frame: "step", decision: "decision",
    },
  };
  const SUIT = { m: ["万", "m"], p: ["筒", "p"], s: ["条", "s"] };
  const HONOR_EN = ["E", "S", "W", "N", "Wh", "F", "C"];
  let TILES = {};
  let ACTIONS = [];
  let lang = "zh";

  function setTiles(table) {
    TILES = {};
    table.forEach((t, i) => { TILES[t.n] = Object.assign({ i: i }, t); });
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
  function tile(n, opts) {
    opts = opts || {};
    const cls = ["t"];
    if (n == null || n === "?") {
      cls.push("back");
      if (opts.extra) cls.push(opts.extra);
      return `<span class="${cls.join(" ")}" title="?"></span>`;
    }
    const info = TILES[n] || { n: n, zh: n, g: "" };
    const suit = n[1];
    let face;
    if (suit === "z") {
      const k = parseInt(n[0], 10) - 1;
      cls.push("z", "z" + (k + 1));
      face = `<b>${lang === "zh" ? esc(info.zh.slice(0, 1)) : HONOR_EN[k]}</b>`;
    } else {
      cls.push(suit);
      face = `<b>${n[0]}</b><i>${SUIT[suit][lang === "zh" ? 0 : 1]}</i>`;
    }
    if (opts.wild) cls.push("wild");
    if (opts.extra) cls.push(opts.extra);
    const data = opts.data ? ` data-tile="${n}"` : "";
    return `<span class="${cls.join(" ")}" title="${esc(info.g + " " + n + " " + info.zh)}"${data}>${face}</span>`;
  }
  function seatName(s, st) {
    const d = st && st.dealer === s ? ` <em class="dealer">${t("dealer")}</em>` : "";
    return lang === "zh" ? `${t("seat")}${s}${d}` : `${t("seat")}${s}${d}`;
  }
  function meldHtml(m, showHidden, wilds) {
    const size = /kong/.test(m.kind) ? 4 : 3;
    const hide = m.hidden && !showHidden;
    let tiles = "";
    for (let i = 0; i < size; i++) {
      const back = m.tile == null || hide || (m.kind === "concealed_kong" && (i === 0 || i === 3));
      tiles += back ? tile(null) : tile(m.tile, { wild: wilds.includes(m.tile) });
    }
    const from = m.from != null && m.kind !== "concealed_kong" ? ` ←${m.from}` : "";
    return `<span class="meld" title="${esc(t(m.kind))}${from}">${tiles}<small>${esc(t(m.kind))}${from}</small></span>`;
  }
  function pondHtml(pond, showDown, wilds) {
    const tokens = (pond || "").match(/~?(?:\d[mpsz]|\?)\^?/g) || [];
    return tokens.map((tok) => {
      let x = tok;
      const claimed = x.endsWith("^");
      if (claimed) x = x.slice(0, -1);
      const down = x.startsWith("~");
      if (down) x = x.slice(1);
      const extra = [claimed ? "claimed" : "", down ? "down" : ""].join(" ").trim();
      if (down && (!showDown || x === "?")) return tile(null, { extra: extra });
      return tile(x, { wild: wilds.includes(x), extra: extra });
    }).join("");
  }
  function actionText(a) {
    const name = a.action === "ting" ? t("ting_a") : a.action === "discard" ? t("discard_a") : t(a.action);
    return a.tile ? `${name} ${a.tile}` : name;
  }
  function eventText(e) {
    if (e.type === "deal") return t("deal");
    if (e.type === "draw") return `${t("seat")}${e.seat} ${e.replacement ? t("replacement") : t("draws")} ${e.tile}`;
    if (e.type === "action") return `${t("seat")}${e.seat} ${actionText(e)}${e.auto ? " (" + t("auto") + ")" : ""}`;
    if (e.type === "end") return `${t("end")}: ${t(e.kind)}${e.tile ? " " + e.tile : ""}`;
    return e.type;
  }
  // opts.view: null (all revealed) or the seat whose view is drawn;
  // opts.clickable: the seat whose concealed tiles are buttons;
  // opts.order: seat at the bottom.
  function drawTable(st, opts) {
    opts = opts || {};
    const view = opts.view == null ? null : opts.view;
    const bottom = opts.bottom != null ? opts.bottom : view != null ? view : 0;
    const wilds = st.wilds || [];
    const pos = ["bottom", "right", "top", "left"];
    let html = "";
    for (let k = 0; k < 4; k++) {
      const s = (bottom + k) % 4;
      const seat = st.seats[s];
      const mine = view == null || view === s;
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
        if (drawnIdx >= 0) hand += `<span class="gap"></span>` + tile(seat.drawn, { wild: wilds.includes(seat.drawn), data: opts.clickable === s, extra: "drawn" });
      } else {
        for (let i = 0; i < seat.count; i++) hand += tile(null);
      }
      const melds = seat.melds.map((m) => meldHtml(m, mine && (view == null || view === s), wilds)).join("");
      const act = st.to_act === s ? " acting" : "";
      const ting = seat.ting ? `<em class="tingb">${t("ting")}</em>` : "";
      html += `<div class="seat ${pos[k]}${act}" data-seat="${s}">
        <div class="name">${seatName(s, st)} ${ting}<span class="score">${t("score")} ${st.scores[s]}</span></div>
        <div class="hand">${hand}</div><div class="melds">${melds}</div>
        <div class="pond">${pondHtml(seat.pond, view == null || view === s, wilds)}</div></div>`;
    }
    const pend = st.pending || {};
    const toAct = st.to_act == null ? t("none") : `${t("seat")}${st.to_act}`;
    const ptile = pend.tile ? " " + tile(pend.tile, { wild: wilds.includes(pend.tile) }) : "";
    const pfrom = pend.from != null ? ` ${t("from")} ${t("seat")}${pend.from}` : "";
    const legal = st.legal && (view == null || view === st.to_act)
      ? `<div class="legal">${st.legal.map((i) => `<span class="la">${esc(actionText(action(i)))}</span>`).join(" ")}</div>` : "";
    const ind = splitTiles(st.indicators || "").map((x) => tile(x)).join("");
    const center = `<div class="center">
      <div>${t("wall")} <b class="wallcount">${st.wall}</b> · ${t("live")} ${st.live}</div>
      ${wilds.length ? `<div>${t("wilds")} ${wilds.map((x) => tile(x, { wild: true })).join("")}</div>` : ""}
      ${ind ? `<div>${t("indicators")} ${ind}</div>` : ""}
      <div>${t("toAct")}: <b>${toAct}</b> · ${t("pending")}: ${t(pend.kind || "none")}${pfrom}${ptile}</div>
      ${opts.showLegal === false ? "" : legal}
      ${opts.centerExtra || ""}</div>`;
    return `<div class="table">${html}${center}</div>`;
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
    setTiles, setActions, action, drawTable, settlementHtml, eventText, actionText, tile, t, esc, num, splitTiles,
    get lang() { return lang; }, set lang(v) { lang = v; },
  };
})();
