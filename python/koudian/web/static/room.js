// The room page (/r/CODE): one WebSocket to /ws/room/CODE (docs/rooms.md,
// "The protocol"). It decides no rule and keeps no game state of its own:
// every seat, table, timer and settlement is the server's last message;
// the page draws it (table.js) and sends what is clicked. The seat token
// is kept in localStorage per room (and read once from a link's #t=TOKEN,
// for another device), so a reload or a reconnect resumes the seat.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const UI = {
    zh: { room: "房间", roomh: "房间号", copy: "复制", copied: "已复制", yourname: "你的名字", take: "入座", watch: "观战",
          sharehelp: "把这个链接或房间号发给朋友；座位按进入顺序就座，先进者坐庄。",
          mylinkhelp: "你自己的座位链接（换设备时用，不要发给别人）：",
          free: "空座", bot: "机器人", person: "玩家", away: "托管中", offline: "离线", ready: "已准备", host: "房主", you: "你",
          readyb: "准备", hint: "提示", fill: "补机器人", startb: "开始（空座由机器人补）", waiting: "等待其他玩家…", spectator: "观战中：只看公开信息",
          awaynote: "托管中：你不在时由机器人代你出牌。", awayback: "你回来了：你离开期间，你的座位由机器人托管代打。",
          takeback: "我回来了", nexthand: "下一局（准备）", timeleft: "剩余", replay: "回放", history: "房间记录",
          totals: "总分", hand: "局", delta: "得失", final: "比赛结束", dismiss: "申请解散", votenote: "有人申请解散房间",
          yes: "同意", no: "拒绝", voted: "已投票", closed: "房间已关闭", why_finished: "比赛结束", why_dismissed: "已解散",
          why_idle: "长时间无人，已关闭", reconnecting: "重新连接…", connected: "已连接", gone: "连接已断开，请刷新页面",
          config: "规则", timer: "时限", notimer: "不限时", hands: "局", rounds: "圈", clickhint: "点一张牌打出；碰、杠、胡用下方的按钮",
          status_waiting: "等待开始", status_playing: "对局中", status_between: "局间", status_finished: "已结束", status_closed: "已关闭",
          after: "局后总分", nohands: "还没有打完的局", players: "玩家" },
    en: { room: "room", roomh: "Room", copy: "Copy", copied: "copied", yourname: "your name", take: "Take a seat", watch: "Watch",
          sharehelp: "Send this link or the room code to your friends; seats are taken in order of entering, the first deals first.",
          mylinkhelp: "Your own seat's link (for another device; do not share it):",
          free: "free", bot: "bot", person: "person", away: "auto-played", offline: "offline", ready: "ready", host: "host", you: "you",
          readyb: "Ready", hint: "Hint", fill: "Add a bot", startb: "Start (bots take free seats)", waiting: "waiting for the others…", spectator: "watching: public information only",
          awaynote: "Auto-played (托管): a bot plays your seat while you are away.", awayback: "Welcome back: your seat was auto-played (托管) while you were away.",
          takeback: "I'm back", nexthand: "Next hand (ready)", timeleft: "left", replay: "Replay", history: "Room history",
          totals: "totals", hand: "hand", delta: "delta", final: "Match over", dismiss: "Ask to dismiss", votenote: "A vote to dismiss the room",
          yes: "Yes", no: "No", voted: "voted", closed: "The room is closed", why_finished: "the match is over", why_dismissed: "dismissed",
          why_idle: "closed after an idle time", reconnecting: "reconnecting…", connected: "connected", gone: "disconnected: reload the page",
          config: "rules", timer: "timer", notimer: "no timer", hands: "hands", rounds: "rounds", clickhint: "Click a tile to discard it; the buttons below pong, kong or win",
          status_waiting: "waiting to start", status_playing: "playing", status_between: "between hands", status_finished: "finished", status_closed: "closed",
          after: "total after", nohands: "no finished hand yet", players: "players" },
  };
  const u = (k) => UI[KD.lang][k] || k;
  const parts = location.pathname.split("/").filter(Boolean);
  const CODE = (parts[1] || "").toUpperCase();
  const HISTORY = parts[2] === "history";
  const KEY = "koudian.room." + CODE;
  const store = {
    get(k) { try { return localStorage.getItem(k); } catch (e) { return null; } },
    set(k, v) { try { if (v == null) localStorage.removeItem(k); else localStorage.setItem(k, v); } catch (e) { /* private mode */ } },
  };
  // A link's #t=TOKEN (another device of the same person): kept, then
  // taken off the address bar, so that a copied address never carries it.
  (() => {
    const m = /(?:^#|&)t=([A-Za-z0-9_-]{16,64})/.exec(location.hash);
    if (m) { store.set(KEY, m[1]); history.replaceState(null, "", location.pathname + location.search); }
  })();
  let autojoin = null;
  try { autojoin = sessionStorage.getItem("koudian.autojoin." + CODE); sessionStorage.removeItem("koudian.autojoin." + CODE); } catch (e) { autojoin = null; }
  const watchOnly = new URLSearchParams(location.search).get("watch") === "1";

  const shown = { banners: null, controls: null };
  let refused = null; // why a seat was refused: shown until the next try
  let fresh = false, ws = null, room = null, you = null, last = null, lastEnd = null, wasAway = false, backNote = false;
  let deadline = null, deadlineSeat = null, tick = null, retries = 0, joining = null, closedByUs = false;

  function send(obj) {
    if (obj.type === "act" && last && last.type === "act") {
      obj.id = last.id;
      // One answer per decision: a second click waits for the next request.
      if (document.body.dataset.act !== "1") return;
      document.body.dataset.act = "sent";
      document.querySelectorAll("#actions button[data-index]").forEach((b) => { b.disabled = true; });
    }
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj));
  }
  function hello() {
    const token = store.get(KEY);
    if (joining) return { type: "hello", name: joining };
    if (token) return { type: "hello", token: token };
    return { type: "hello", watch: true };
  }
  function connect() {
    closedByUs = false;
    const sock = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/room/" + CODE);
    ws = sock;
    sock.onopen = () => { retries = 0; $("conn").textContent = ""; sock.send(JSON.stringify(hello())); };
    sock.onmessage = (ev) => { if (sock === ws) onMessage(JSON.parse(ev.data)); };
    sock.onclose = (ev) => {
      if (sock !== ws || closedByUs) return;
      // A reconnect resumes the seat (hello with the token): bounded tries,
      // spaced out, then the page says so.
      if (ev.reason) $("error").textContent = ev.reason;
      if (retries >= 12 || ev.code === 1008 || (room && room.status === "closed")) { $("conn").textContent = u("gone"); return; }
      retries += 1;
      $("conn").textContent = u("reconnecting");
      setTimeout(connect, Math.min(500 * 2 ** retries, 8000));
    };
  }
  function reconnect() { closedByUs = true; if (ws) ws.close(); connect(); }

  function onMessage(m) {
    if (m.type === "error") {
      $("error").textContent = m.error;
      document.body.dataset.errors = String(Number(document.body.dataset.errors || 0) + 1);
      // A refused answer: the decision is still open, ask again.
      if (last && last.type === "act" && document.body.dataset.act === "sent") drawGame();
      // A refused hello (a seat taken meanwhile, a token the room does not
      // know: a room's old link): watch instead, the reason shown.
      if (you == null && (joining || (store.get(KEY) && !room))) {
        if (!joining) store.set(KEY, null);
        joining = null;
        refused = m.error;
        reconnect();
      }
      return;
    }
    $("error").textContent = refused || "";
    if (m.type === "welcome") {
      you = m.seat;
      joining = null;
      fresh = true;
      if (m.token) store.set(KEY, m.token);
      drawLobby();
      return;
    }
    if (m.type === "room") { onRoom(m); return; }
    if (m.type === "act" || m.type === "table") {
      if (m.type === "act") { backNote = false; $("hint").hidden = true; }
      last = m;
      setDeadline(m.deadline_ms, m.type === "act" ? you : m.to_act);
      drawGame();
      return;
    }
    if (m.type === "hint") {
      // The greedy ranking of your decision, as on the play page.
      const rows = m.ranked.map((c) => {
        const nums = Object.entries(c.numbers).map(([k, v]) => `${k} ${KD.num(v)}`).join(", ");
        return `<li>${KD.esc(KD.actionText(c.action))} <small>${KD.esc(nums)}</small></li>`;
      }).join("");
      $("hint").innerHTML = `<b>${KD.esc(m.agent)}</b><ol>${rows}</ol>`;
      $("hint").hidden = false;
      return;
    }
    if (m.type === "end") { last = m; lastEnd = m; setDeadline(null, null); drawGame(); drawSettle(); return; }
  }
  function onRoom(m) {
    const first = fresh;
    fresh = false;
    room = m;
    if (m.you !== undefined) you = m.you;
    const me = you != null ? m.seats[you] : null;
    // Back from away (a reload, another device): the page says the seat was
    // auto-played meanwhile.
    if (me && me.away && first) backNote = true;
    if (me && wasAway && !me.away) backNote = true;
    wasAway = !!(me && me.away);
    if (m.status === "waiting" || m.status === "playing") lastEnd = m.status === "playing" && last && last.type !== "end" ? null : lastEnd;
    document.body.dataset.phase = m.status;
    document.body.dataset.hands = String(m.match ? m.match.hands_played : 0);
    drawLobby();
    drawGame();
    drawSettle();
    drawResults();
  }
  function setDeadline(ms, seat) {
    deadline = ms == null || ms <= 0 ? null : performance.now() + ms;
    deadlineSeat = seat;
    if (tick == null && deadline != null) tick = setInterval(showClock, 250);
    showClock();
  }
  function secondsLeft() { return deadline == null ? null : Math.max(0, Math.ceil((deadline - performance.now()) / 1000)); }
  function showClock() {
    const left = secondsLeft();
    if (left == null || left === 0) { if (tick != null && left == null) { clearInterval(tick); tick = null; } }
    const mine = last && last.type === "act";
    const timer = $("timer");
    if (timer) { timer.textContent = mine && left != null ? `${u("timeleft")} ${left} s` : ""; timer.classList.toggle("low", left != null && left <= 5); }
    document.querySelectorAll("#table .clock").forEach((el) => { el.textContent = left == null ? "" : `${left}s`; el.hidden = left == null; });
  }
  function seatBadges(s) {
    if (!room) return "";
    const x = room.seats[s];
    let b = "";
    if (x.kind === "bot") b += `<em class="badge b-bot">${u("bot")}</em>`;
    if (x.away) b += `<em class="badge b-away">${u("away")}</em>`;
    if (x.kind === "person" && !x.connected) b += `<em class="badge b-off">${u("offline")}</em>`;
    return b;
  }
  function names() { return room ? room.seats.map((x) => (x.kind === "free" ? u("free") : x.name || (x.kind === "bot" ? u("bot") : "?"))) : null; }
  function canDiscard(m) { return m.legal_actions.some((a) => a.action === "discard"); }
  function drawGame() {
    if (!last) { $("table").innerHTML = ""; $("actions").innerHTML = ""; return; }
    const m = last;
    const mine = m.type === "act";
    const done = m.type === "end";
    const watcher = you == null;
    const clickable = mine && canDiscard(m);
    const badges = [0, 1, 2, 3].map((s) => seatBadges(s) + (deadlineSeat === s && !done ? ' <span class="clock"></span>' : ""));
    $("table").innerHTML = KD.drawTable(m.table, {
      // A watcher's view is nobody's: every concealed tile face down.
      view: done ? null : watcher ? -1 : you, bottom: watcher ? 0 : you, clickable: clickable ? you : null, showLegal: false,
      scores: done && m.match ? m.match.totals : null, scoreLabel: done ? u("after") : null, result: done ? m.result : null,
      note: clickable ? u("clickhint") : null, names: names(), badges: badges,
    });
    const mi = m.match || (room && room.match);
    $("matchinfo").textContent = mi ? ` ${KD.t("hand")} ${mi.hands_played + (done ? 0 : 1)} · ${u("totals")} ${mi.totals.join(" / ")}` : "";
    let buttons = "";
    if (mine) {
      for (const a of m.legal_actions) {
        if (a.action === "discard") continue;
        buttons += `<button class="act" data-index="${a.index}" data-action="${a.action}">${KD.esc(KD.actionText(a))}</button>`;
      }
      if (window.KD_INFO && window.KD_INFO.hints) buttons += ` <button class="act" id="hintb">${u("hint")}</button>`;
      buttons += '<span id="timer"></span>';
    } else if (watcher) {
      buttons += `<span class="note">${u("spectator")}</span>`;
    }
    $("actions").innerHTML = buttons;
    document.body.dataset.act = mine ? "1" : "0";
    document.body.dataset.msg = m.type;
    document.querySelectorAll("#actions button[data-index]").forEach((b) => {
      b.onclick = () => send({ type: "act", index: Number(b.dataset.index) });
    });
    if ($("hintb")) $("hintb").onclick = () => send({ type: "hint" });
    if (!mine) $("hint").hidden = true;
    document.querySelectorAll("#table .hand .t[data-tile]").forEach((el) => {
      el.onclick = () => send({ type: "act", action: "discard", tile: el.dataset.tile });
      el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); el.click(); } };
    });
    showClock();
    drawBanners();
  }
  function drawSettle() {
    const between = room && room.status === "between";
    if (!lastEnd || !room || !(between || room.status === "finished" || room.status === "closed")) { $("settle").innerHTML = ""; return; }
    let html = KD.settlementHtml(lastEnd.result);
    if (lastEnd.replay) html += `<div class="row"><a class="replay" href="${KD.esc(lastEnd.replay)}?lang=${KD.lang}" target="_blank">${u("replay")}</a></div>`;
    $("settle").innerHTML = `<div class="card">${html}</div>`;
  }
  function configText(c) {
    if (!c) return "";
    const opts = Object.entries(c.options || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
    const len = c.hands != null ? `${c.hands} ${u("hands")}` : c.rounds != null ? `${c.rounds} ${u("rounds")}` : "";
    const timer = c.timer ? `${u("timer")} ${c.timer} s` : u("notimer");
    return `${u("config")}: <b>${KD.esc(c.preset)}</b>${opts ? " (" + KD.esc(opts) + ")" : ""} · ${KD.esc(len)} · ${KD.esc(timer)}`;
  }
  function drawLobby() {
    $("code").textContent = CODE;
    document.title = `koudian · ${u("room")} ${CODE}`;
    $("roomcode").textContent = CODE;
    $("share").value = location.origin + "/r/" + CODE;
    const token = store.get(KEY);
    $("mylink").hidden = !(you != null && token);
    if (you != null && token) $("mine").value = location.origin + "/r/" + CODE + "#t=" + token;
    if (!room) return;
    $("config").innerHTML = configText(room.config);
    const rows = room.seats.map((x, s) => {
      const who = x.kind === "free" ? `<i>${u("free")}</i>` : KD.esc(x.name || u(x.kind));
      const marks = [s === 0 && x.kind === "person" ? `<em class="badge b-host">${u("host")}</em>` : "",
        s === you ? `<em class="badge b-ready">${u("you")}</em>` : "", seatBadges(s),
        x.ready && x.kind === "person" && room.status !== "playing" ? `<em class="badge b-ready">${u("ready")}</em>` : ""].join("");
      return `<tr class="${s === you ? "me" : ""}" data-seat="${s}"><td>${KD.t("seat")}${s}</td><td>${who}</td><td>${marks}</td></tr>`;
    }).join("");
    $("seats").innerHTML = rows;
    const free = room.seats.some((x) => x.kind === "free");
    $("join").hidden = !(you == null && free && room.status === "waiting");
    let ctl = "";
    const me = you != null ? room.seats[you] : null;
    if (me && (room.status === "waiting" || room.status === "between") && !me.ready) {
      ctl += `<button class="act" id="readyb">${room.status === "between" ? u("nexthand") : u("readyb")}</button>`;
    }
    if (you === 0 && room.status === "waiting") {
      const agents = (window.KD_INFO && (window.KD_INFO.agents || window.KD_INFO.opponents)) || [];
      room.seats.forEach((x, s) => {
        if (x.kind !== "free") return;
        const opts = agents.map((a) => `<option>${KD.esc(a)}</option>`).join("");
        ctl += `<span><select class="fillagent" data-seat="${s}">${opts}</select><button class="fillb" data-seat="${s}">${u("fill")} ${KD.t("seat")}${s}</button></span>`;
      });
      ctl += `<button class="act" id="startb">${u("startb")}</button>`;
    }
    if (you == null && room.status !== "closed") ctl += `<span class="note">${u("spectator")}</span>`;
    if (me && room.status !== "closed" && room.status !== "finished" && !room.vote) ctl += `<button id="dismissb">${u("dismiss")}</button>`;
    if (room.match && room.match.hands && room.match.hands.length) ctl += `<a href="/r/${CODE}/history">${u("history")}</a>`;
    if (ctl !== shown.controls) {
      shown.controls = ctl;
      $("controls").innerHTML = ctl;
    }
    if ($("readyb")) $("readyb").onclick = () => send({ type: "ready" });
    if ($("startb")) $("startb").onclick = () => send({ type: "start" });
    if ($("dismissb")) $("dismissb").onclick = () => send({ type: "vote", dismiss: true });
    document.querySelectorAll(".fillb").forEach((b) => {
      b.onclick = () => {
        const s = Number(b.dataset.seat);
        send({ type: "fill", seat: s, agent: document.querySelector(`.fillagent[data-seat="${s}"]`).value });
      };
    });
    document.body.dataset.you = you == null ? "" : String(you);
    drawBanners();
  }
  function drawBanners() {
    let html = "";
    const me = room && you != null ? room.seats[you] : null;
    if (me && me.away) {
      html += `<div class="banner" id="awaybanner">${u("awaynote")} <button id="backb">${u("takeback")}</button></div>`;
    } else if (backNote) {
      html += `<div class="banner" id="backbanner">${u("awayback")}</div>`;
    }
    const v = room && room.vote;
    if (v) {
      // A no ends the vote; a person who does not answer in time counts as yes.
      const yes = v.yes || [];
      const mine = you != null && yes.includes(you);
      const people = room.seats.filter((x) => x.kind === "person").length;
      let b = `<div class="banner vote" id="votebanner"><b>${u("votenote")}</b> · ${u("yes")} ${yes.length} / ${people}`;
      if (you != null && !mine) b += ` <button id="voteyes">${u("yes")}</button><button id="voteno">${u("no")}</button>`;
      else if (mine) b += ` · ${u("voted")}`;
      html += b + "</div>";
    }
    if (room && room.status === "closed") {
      const why = room.closed;
      html += `<div class="banner" id="closedbanner"><b>${u("closed")}</b>${why ? " · " + u("why_" + why) : ""}</div>`;
    }
    // Redrawn only when it changes: a button under the pointer stays the
    // same element while the bots play on (a click is never lost).
    if (html === shown.banners) { document.body.dataset.away = me && me.away ? "1" : "0"; return; }
    shown.banners = html;
    $("banners").innerHTML = html;
    // The seat's person takes it back from the bot (托管 off).
    if ($("backb")) $("backb").onclick = () => send({ type: "back" });
    if ($("voteyes")) $("voteyes").onclick = () => send({ type: "vote", dismiss: true });
    if ($("voteno")) $("voteno").onclick = () => send({ type: "vote", dismiss: false });
    document.body.dataset.away = me && me.away ? "1" : "0";
  }
  function handsTable(mi, seats) {
    if (!mi || !mi.hands || !mi.hands.length) return `<div class="note">${u("nohands")}</div>`;
    const head = `<tr><th>${u("hand")}</th>${[0, 1, 2, 3].map((s) => `<th>${KD.esc(seats ? seats[s] : KD.t("seat") + s)}</th>`).join("")}<th></th></tr>`;
    const rows = mi.hands.map((h) => `<tr class="handrow"><td>${h.hand + 1}</td>${h.deltas.map((d) => `<td class="num">${d > 0 ? "+" : ""}${d}</td>`).join("")}` +
      `<td>${h.replay ? `<a class="replay" href="${KD.esc(h.replay)}?lang=${KD.lang}" target="_blank">${u("replay")}</a>` : ""}</td></tr>`).join("");
    const tot = `<tr><th>${u("totals")}</th>${mi.totals.map((t) => `<th class="num">${t}</th>`).join("")}<th></th></tr>`;
    return `<table class="hands">${head}${rows}${tot}</table>`;
  }
  function drawResults() {
    const show = room && (room.status === "finished" || room.status === "closed" || room.status === "between");
    $("results").hidden = !show;
    if (!show) return;
    const title = room.status === "between" ? u("totals") : u("final");
    $("results").innerHTML = `<h3>${title}</h3>${handsTable(room.match, names())}`;
  }
  function labels() {
    document.querySelectorAll("[data-l]").forEach((el) => { el.textContent = u(el.dataset.l); });
    drawLobby(); drawGame(); drawSettle(); drawResults();
  }
  async function showHistory() {
    // /r/CODE/history: the room's finished hands, totals and replays.
    document.body.dataset.phase = "history";
    const r = await fetch("/api/rooms/" + CODE);
    const h = await r.json();
    if (!r.ok) { $("error").textContent = h.error || r.statusText; return; }
    room = Object.assign({ seats: [0, 1, 2, 3].map(() => ({ kind: "free" })) }, h);
    $("lobby").hidden = true;
    $("results").hidden = false;
    $("results").innerHTML = `<h3>${u("history")} · ${CODE}</h3><div class="note">${configText(h.config)}</div>${handsTable(h.match, h.seats ? names() : null)}`;
    document.body.dataset.ready = "1";
  }
  $("copy").onclick = () => { $("share").select(); try { navigator.clipboard.writeText($("share").value); } catch (e) { /* no clipboard */ } $("copy").textContent = u("copied"); };
  $("copymine").onclick = () => { $("mine").select(); try { navigator.clipboard.writeText($("mine").value); } catch (e) { /* no clipboard */ } };
  $("joinb").onclick = () => {
    const name = $("name").value.trim();
    if (!name) { $("name").focus(); return; }
    store.set("koudian.name", name);
    joining = name;
    refused = null;
    reconnect();
  };
  $("lang").onclick = () => { KD.setLang(KD.lang === "zh" ? "en" : "zh"); labels(); };
  $("name").value = store.get("koudian.name") || "";
  fetch("/api/info").then((r) => r.json()).then((info) => {
    window.KD_INFO = info;
    KD.setTiles(info.tiles);
    KD.setActions(info.actions);
    KD.initLang();
    labels();
    if (HISTORY) { showHistory(); return; }
    // The room's creator (sent here by the home page) takes a seat at once.
    if (autojoin && !store.get(KEY) && !watchOnly) joining = store.get("koudian.name") || (KD.lang === "zh" ? "玩家" : "player");
    connect();
    document.body.dataset.ready = "1";
  });
})();
