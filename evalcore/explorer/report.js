// The report's live weights: re-rank the embedded aggregates as evalcore/analysis/scores/weights.py and
// leaderboard.py do (the same log scale, errors penalty, tie rounding and tie-breaks), and draw the tables.
// Every text from the run is set with textContent: nothing from the data is ever parsed as markup.
// The ranking half is pure (no DOM): node runs it in the tests against the Python ranking.
// Its numbers are evalcore/analysis/scores/rules.py's, written in where RULES is passed (report.report_script).
var evalcoreRanking = (function (RULES) {
  "use strict";
  var TIE_SCALE = Math.pow(10, RULES.tie_decimals);
  var POINTS_TOLERANCE = RULES.points_tolerance;
  var LOG_SCALE = RULES.log_scale_names;

  function num(v) { return v === null || v === undefined ? NaN : v; }
  // numpy's rint: halves to even.
  function rint(x) { return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x); }
  // np.round(x, tie_decimals): multiply, rint, divide.
  function roundTie(x) { return rint(x * TIE_SCALE) / TIE_SCALE; }
  function nanLast(x) { return isNaN(x) ? Infinity : x; }

  // weights.log_scale over one table's column.
  function logScale(xs) {
    var lo = Infinity, hi = -Infinity;
    xs.forEach(function (x) {
      if (isNaN(x)) return;
      if (x > 0 && x < lo) lo = x;
      if (x > hi) hi = x;
    });
    var usable = isFinite(lo) && hi > lo;
    return xs.map(function (x) {
      if (isNaN(x)) return NaN;
      if (!(usable && x > lo)) return 0;
      var t = (Math.log(x) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
      return Math.min(1, Math.max(0, t));
    });
  }

  // weights.wscores: goodness per weighted name, their |w|-weighted mean in points, less the errors penalty.
  function wscores(rows, weights) {
    var names = Object.keys(weights);
    if (!names.length) return rows.map(function () { return NaN; });
    var column = function (n) { return rows.map(function (r) { return num(r.values[n]); }); };
    var errors = column("errors");
    var total = 0, goodness = [];
    names.forEach(function (n) {
      var w = weights[n];
      total += Math.abs(w);
      var g;
      if (n === "errors") g = errors.map(function () { return 1; });
      else {
        g = LOG_SCALE.indexOf(n) >= 0 ? logScale(column(n)) : column(n);
        if (w < 0) g = g.map(function (v) { return 1 - v; });
      }
      goodness.push(g);
    });
    return rows.map(function (r, i) {
      var dot = 0;
      names.forEach(function (n, k) { dot += goodness[k][i] * Math.abs(weights[n]); });
      var raw = 100 * dot / total;
      var penalty = "errors" in weights && errors[i] >= 1 ? RULES.errors_penalty_base + RULES.errors_penalty_each * errors[i] : 0;
      return Math.max(raw - penalty, 0);
    });
  }

  function compareKeys(a, b) {
    for (var k = 0; k < a.length; k++) {
      if (a[k] < b[k]) return -1;
      if (a[k] > b[k]) return 1;
    }
    return 0;
  }

  // leaderboard._rank_table: order, rank, best and best value of one table under these weights. A contender
  // an adaptive run's race stopped (r.stopped) ranks below those still in, and is never best nor best value.
  function rankTable(rows, weights, points) {
    var weighted = Object.keys(weights).length > 0;
    var scored = rows.map(function (r) { return r.values.scored > 0; });
    var ws = wscores(rows, weights).map(function (w, i) { return scored[i] ? w : NaN; });
    var keys = rows.map(function (r, i) {
      return [r.stopped ? 1 : 0, nanLast(-roundTie(ws[i])), nanLast(-num(r.values.score)), nanLast(num(r.values.cost)), r.id_rank];
    });
    var idx = rows.map(function (_, i) { return i; });
    idx.sort(function (a, b) { return compareKeys(keys[a], keys[b]); });
    var first = idx.filter(function (i) { return scored[i]; });
    var unscored = idx.filter(function (i) { return !scored[i]; });
    unscored.sort(function (a, b) { return rows[a].id_rank - rows[b].id_rank; });
    var order = first.concat(unscored);
    var out = order.map(function (i, position) {
      var r = rows[i];
      return {
        source: r, contender: r.contender, values: r.values, few_cases: r.few_cases, p_best: r.p_best, stopped: r.stopped || null,
        aggregate_only: r.aggregate_only === true,
        score_lo: r.score_lo, score_hi: r.score_hi, wscore_lo: r.wscore_lo, wscore_hi: r.wscore_hi,
        rank: scored[i] ? position + 1 : null, wscore: isNaN(ws[i]) ? null : ws[i], best: false, best_value: false
      };
    });
    var best = out.find(function (r) {
      var rated = weighted ? num(r.wscore) : num(r.values.score);
      return !isNaN(rated) && r.values.errors === 0 && r.values.scored > 0 && !r.stopped;
    });
    if (best) best.best = true;
    var value = bestValue(out, points);
    if (value) value.best_value = true;
    return out;
  }

  // leaderboard._best_value: the cheapest row with no errors within the points of the top score.
  function bestValue(rows, points) {
    var top = -Infinity;
    rows.forEach(function (r) { var s = num(r.values.score); if (!r.stopped && !isNaN(s) && s > top) top = s; });
    var eligible = rows.filter(function (r) {
      var s = num(r.values.score), c = num(r.values.cost);
      return !r.stopped && r.values.errors === 0 && !isNaN(s) && !isNaN(c) && s >= top - points - POINTS_TOLERANCE;
    });
    eligible.sort(function (a, b) {
      return compareKeys([a.values.cost, -a.values.score, a.source.id_rank], [b.values.cost, -b.values.score, b.source.id_rank]);
    });
    return eligible[0];
  }

  return { num: num, logScale: logScale, wscores: wscores, rankTable: rankTable, rules: RULES };
})(/*{{RULES}}*/);

if (typeof module !== "undefined") module.exports = evalcoreRanking;

if (typeof document !== "undefined") (function (ranking) {
  "use strict";
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var MARKS = DATA.marks;
  var num = ranking.num;

  // --- display -----------------------------------------------------------------------------------

  function moneyDecimals(rows) {
    var low = Infinity;
    rows.forEach(function (r) { var c = num(r.values.cost); if (c > 0 && c < low) low = c; });
    return isFinite(low) ? Math.min(10, Math.max(2, 1 - Math.floor(Math.log10(low)))) : 2;
  }
  function fixed(v, d) { return isNaN(num(v)) ? "–" : num(v).toFixed(d); }
  function interval(lo, hi, scale) {
    return isNaN(num(lo)) || isNaN(num(hi)) ? "–" : (scale * lo).toFixed(1) + "–" + (scale * hi).toFixed(1);
  }
  function marks(r) {
    var out = [];
    if (r.best) out.push(MARKS.best);
    if (r.best_value) out.push(MARKS.value);
    if (r.values.scored === 0) out.push(MARKS.none);
    else if (r.few_cases) out.push(MARKS.few);
    if (r.aggregate_only) out.push(MARKS.aggregate);
    if (r.stopped) out.push(r.stopped);
    return out.join("  ");
  }

  // Each column: header, sort value, text, whether it is a number, whether it follows the report's weights only.
  function columns(weighted, money, rankedBy) {
    var cols = [
      ["rank", function (r) { return num(r.rank); }, function (r) { return r.rank === null ? "–" : String(r.rank); }, true],
      ["contender", function (r) { return r.contender; }, function (r) { return r.contender; }, false],
      ["mark", function (r) { return marks(r); }, marks, false]
    ];
    // A per-dataset table of a run ranked by the corrected score: which score each row ranks by.
    if (rankedBy) cols.splice(2, 0, ["ranked by", function (r) { return (r.source || r).ranked_by || ""; }, function (r) { return (r.source || r).ranked_by || ""; }, false]);
    if (weighted) cols.push(["wscore", function (r) { return num(r.wscore); }, function (r) { return fixed(r.wscore, 1); }, true]);
    cols.push(
      ["score", function (r) { return num(r.values.score); }, function (r) { return fixed(100 * num(r.values.score), 1) + (isNaN(num(r.values.score)) ? "" : "%"); }, true],
      ["errors", function (r) { return r.values.errors; }, function (r) { return String(r.values.errors); }, true],
      ["cost", function (r) { return num(r.values.cost); }, function (r) { return isNaN(num(r.values.cost)) ? "–" : "$" + r.values.cost.toFixed(money); }, true],
      ["time", function (r) { return num(r.values.time); }, function (r) { return isNaN(num(r.values.time)) ? "–" : r.values.time.toFixed(2) + " s"; }, true]
    );
    if (DATA.intervals) {
      cols.push(["P(best)", function (r) { return num(r.p_best); }, function (r) { return isNaN(num(r.p_best)) ? "–" : (100 * r.p_best).toFixed(1) + "%"; }, true, true]);
      cols.push(["score 95% CI", function (r) { return num(r.score_lo); }, function (r) { return interval(r.score_lo, r.score_hi, 100); }, true]);
      if (weighted) cols.push(["wscore 95% CI", function (r) { return num(r.wscore_lo); }, function (r) { return interval(r.wscore_lo, r.wscore_hi, 1); }, true, true]);
    }
    DATA.metrics.forEach(function (m) {
      if (m.primary) return;
      cols.push([m.name, function (r) { return num(r.values[m.name]); }, function (r) { var v = num(r.values[m.name]); return isNaN(v) ? "–" : (100 * v).toFixed(1) + "%"; }, true]);
    });
    if (DATA.pass_rate) cols.push(["pass rate", function (r) { return num((r.source || r).pass_rate); }, function (r) { var v = num((r.source || r).pass_rate); return isNaN(v) ? "–" : (100 * v).toFixed(1) + "%"; }, true]);
    cols.push(["cases", function (r) { return r.values.cases; }, function (r) { return (r.source || r).cases_text || String(r.values.cases); }, true]);
    return cols;
  }

  function sortRows(rows, col, dir) {
    var copy = rows.slice();
    copy.sort(function (a, b) {
      var x = col[1](a), y = col[1](b);
      var nx = typeof x === "number" && isNaN(x), ny = typeof y === "number" && isNaN(y);
      if (nx || ny) return nx === ny ? 0 : nx ? 1 : -1; // blanks last either way
      var c = typeof x === "string" ? x.localeCompare(y) : x - y;
      return dir === "descending" ? -c : c;
    });
    return copy;
  }

  function drawTable(holder, rows, weighted, stale, sort) {
    var cols = columns(weighted, moneyDecimals(rows), rows.some(function (r) { return (r.source || r).ranked_by; }));
    var table = document.createElement("table");
    table.className = "board";
    var head = table.createTHead().insertRow();
    cols.forEach(function (col) {
      var th = document.createElement("th");
      th.textContent = col[0];
      th.title = "sort by " + col[0];
      if (sort.name === col[0]) th.setAttribute("aria-sort", sort.dir);
      th.addEventListener("click", function () {
        sort.dir = sort.name === col[0] && sort.dir === "ascending" ? "descending" : "ascending";
        sort.name = col[0];
        sort.redraw();
      });
      head.appendChild(th);
    });
    var current = cols.find(function (c) { return c[0] === sort.name; });
    var body = table.createTBody();
    (current ? sortRows(rows, current, sort.dir) : rows).forEach(function (r) {
      var tr = body.insertRow();
      if (r.best) tr.className = "best";
      cols.forEach(function (col) {
        var td = tr.insertCell();
        td.textContent = col[2](r);
        td.className = (col[3] ? "num" : "") + (stale && col[4] ? " stale" : "");
      });
    });
    var scroll = document.createElement("div");
    scroll.className = "scroll";
    scroll.appendChild(table);
    holder.replaceChildren(scroll);
  }

  // --- state -------------------------------------------------------------------------------------

  var sliders = {};
  var sorts = DATA.tables.map(function () { return { name: "rank", dir: "ascending", redraw: null }; });

  function positions() {
    var out = {};
    DATA.names.forEach(function (n) { out[n] = parseInt(sliders[n].value, 10); });
    return out;
  }
  function moved() {
    var p = positions();
    return DATA.names.some(function (n) { return p[n] !== DATA.sliders[n]; });
  }
  // view.slider_weights: the non-zero positions / 100.
  function currentWeights() {
    var p = positions(), out = {};
    DATA.names.forEach(function (n) { if (p[n]) out[n] = p[n] / 100; });
    return out;
  }
  function weightsText(weights) {
    var names = Object.keys(weights);
    return names.length ? names.map(function (n) { return n + "=" + weights[n]; }).join(",") : "";
  }

  function tablesNow() {
    if (!moved()) {
      return { weighted: Object.keys(DATA.weights).length > 0, rows: DATA.tables.map(function (t) { return t.rows; }), stale: false };
    }
    var weights = currentWeights();
    return {
      weighted: Object.keys(weights).length > 0,
      rows: DATA.tables.map(function (t) { return ranking.rankTable(t.rows, weights, ranking.rules.best_value_points); }),
      stale: true,
      weights: weights
    };
  }

  function render() {
    var now = tablesNow();
    var overall = document.getElementById("overall");
    var datasets = document.getElementById("datasets");
    var holders = [overall];
    datasets.replaceChildren();
    DATA.tables.slice(1).forEach(function (t) {
      var title = document.createElement("h3");
      title.textContent = t.dataset;
      var holder = document.createElement("div");
      holder.className = "dataset-table";
      holder.setAttribute("data-dataset", t.dataset);
      datasets.appendChild(title);
      datasets.appendChild(holder);
      holders.push(holder);
    });
    DATA.tables.forEach(function (t, i) {
      sorts[i].redraw = function () { drawTable(holders[i], now.rows[i], now.weighted, now.stale, sorts[i]); };
      sorts[i].redraw();
    });
    var shown = currentWeights();
    document.getElementById("weights-text").textContent = "weights: " + (weightsText(shown) || "none (ranked by score)");
    var note = document.getElementById("stale-note");
    note.hidden = !(now.stale && DATA.intervals);
    note.textContent = "The weights have moved: P(best) and the wscore intervals (grey) are still those of the report's weights (" +
      (weightsText(DATA.weights) || "none") + "); the ranks, wscores and marks follow the sliders.";
    banner(now);
  }

  function banner(now) {
    var report = document.getElementById("banner-report"), live = document.getElementById("banner-live");
    report.hidden = now.stale;
    live.hidden = !now.stale;
    if (!now.stale) return;
    var rows = now.rows[0];
    var best = rows.find(function (r) { return r.best; }), value = rows.find(function (r) { return r.best_value; });
    live.replaceChildren();
    var line = function (label, text) {
      var p = document.createElement("div"), b = document.createElement("strong"), s = document.createElement("span");
      b.textContent = label;
      s.textContent = text;
      p.appendChild(b);
      p.appendChild(s);
      live.appendChild(p);
      return s;
    };
    if (!rows.length) line("No result matches these filters.", "");
    else if (rows.length === 1) line("Only one contender, " + rows[0].contender + ": ", ranking.rules.alone_text).setAttribute("data-role", "alone");
    else if (best) line("Winner under these weights: ", best.contender).setAttribute("data-role", "winner");
    else line("No winner: ", "no row was scored without errors.");
    if (value && rows.length > 1) line("Best value: ", value.contender + ", the cheapest row with no errors within " + 100 * ranking.rules.best_value_points + " points of the top score").setAttribute("data-role", "best-value");
    var note = document.createElement("div");
    note.className = "note";
    note.textContent = "The report's own banner (P(best), weight stability, why) is for its weights; go back to them to see it.";
    live.appendChild(note);
  }

  function buildSliders() {
    var holder = document.getElementById("sliders");
    DATA.names.forEach(function (name) {
      var label = document.createElement("label");
      var text = document.createElement("span");
      text.textContent = name;
      var input = document.createElement("input");
      input.type = "range";
      input.min = "-100";
      input.max = "100";
      input.step = "1";
      input.value = String(DATA.sliders[name]);
      input.name = name;
      input.title = DATA.hints[name] || name;
      input.setAttribute("aria-label", "weight of " + name);
      var output = document.createElement("output");
      output.textContent = input.value;
      input.addEventListener("input", function () { output.textContent = input.value; render(); });
      label.appendChild(text);
      label.appendChild(input);
      label.appendChild(output);
      holder.appendChild(label);
      sliders[name] = input;
    });
    document.getElementById("reset").addEventListener("click", function () {
      DATA.names.forEach(function (n) {
        sliders[n].value = String(DATA.sliders[n]);
        sliders[n].nextSibling.textContent = sliders[n].value;
      });
      render();
    });
  }

  buildSliders();
  render();
})(evalcoreRanking);
