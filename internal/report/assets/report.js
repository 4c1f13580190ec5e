// The report's only script: a shared time cursor across every time chart with
// a read-out of the hovered chart. Charts are plain SVG and need no script;
// this only adds the cursor. Errors are written into the page so that a test
// (or a reader) sees them.
(function () {
  var root = document.documentElement, nerr = 0;
  function fail(msg) {
    nerr++;
    root.setAttribute('data-report-errors', String(nerr));
    var list = document.getElementById('report-errors');
    if (!list) return;
    list.hidden = false;
    var li = document.createElement('li');
    li.textContent = msg;
    list.appendChild(li);
  }
  window.addEventListener('error', function (e) { fail(String(e.message || e)); });
  try {
    var data = JSON.parse(document.getElementById('report-data').textContent);
    var charts = Array.prototype.slice.call(document.querySelectorAll('svg.tchart'));
    var tip = document.getElementById('tip');
    var fmt = function (v) {
      var a = Math.abs(v);
      if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
      if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
      if (a >= 100) return v.toFixed(0);
      if (a >= 1) return v.toFixed(2);
      return v.toPrecision(2);
    };
    var clock = function (s) {
      var neg = s < 0; s = Math.round(Math.abs(s));
      var t = Math.floor(s / 60) + ':' + ('0' + (s % 60)).slice(-2);
      return (neg ? '-' : '') + t;
    };
    var nearest = function (xs, t) {
      var lo = 0, hi = xs.length - 1;
      if (hi < 0) return -1;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (xs[mid] < t) lo = mid + 1; else hi = mid; }
      if (lo > 0 && Math.abs(xs[lo - 1] - t) < Math.abs(xs[lo] - t)) lo--;
      return lo;
    };
    var hide = function () {
      tip.hidden = true;
      charts.forEach(function (c) { c.querySelector('line.cursor').setAttribute('visibility', 'hidden'); });
    };
    charts.forEach(function (svg) {
      var cd = data.charts[svg.getAttribute('data-chart')];
      if (!cd) { fail('no data for chart ' + svg.id); return; }
      svg.addEventListener('mousemove', function (ev) {
        var r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
        var ux = (ev.clientX - r.left) * vb.width / r.width;
        var left = +svg.getAttribute('data-left'), w = +svg.getAttribute('data-width');
        if (ux < left || ux > left + w) { hide(); return; }
        var t = data.x0 + (ux - left) / w * (data.x1 - data.x0);
        charts.forEach(function (c) {
          var l = c.querySelector('line.cursor');
          l.setAttribute('x1', ux); l.setAttribute('x2', ux); l.setAttribute('visibility', 'visible');
        });
        while (tip.firstChild) tip.removeChild(tip.firstChild);
        var head = document.createElement('div'); head.className = 't';
        head.textContent = clock(t) + ' \u00b7 ' + cd.t;
        tip.appendChild(head);
        cd.l.forEach(function (line) {
          var i = nearest(line.x, t);
          if (i < 0) return;
          var row = document.createElement('div'); row.className = 'r';
          var name = document.createElement('span');
          var sw = document.createElement('i'); sw.style.background = line.c;
          name.appendChild(sw); name.appendChild(document.createTextNode(line.n));
          var val = document.createElement('span'); val.textContent = fmt(line.y[i]) + ' ' + cd.u;
          if (line.lo) val.textContent += ' (' + fmt(line.lo[i]) + '\u2013' + fmt(line.hi[i]) + ')';
          row.appendChild(name); row.appendChild(val); tip.appendChild(row);
        });
        tip.hidden = false;
        var x = ev.clientX + 16, y = ev.clientY + 12;
        if (x + tip.offsetWidth > window.innerWidth - 8) x = ev.clientX - tip.offsetWidth - 16;
        if (y + tip.offsetHeight > window.innerHeight - 8) y = ev.clientY - tip.offsetHeight - 12;
        tip.style.left = x + 'px'; tip.style.top = y + 'px';
      });
      svg.addEventListener('mouseleave', hide);
    });
    // #cursor-selftest: move the cursor over the first chart as a reader would,
    // so a headless browser can check the read-out works.
    if (location.hash === '#cursor-selftest' && charts.length > 0) {
      var r0 = charts[0].getBoundingClientRect();
      charts[0].dispatchEvent(new MouseEvent('mousemove', { clientX: r0.left + r0.width * 0.6, clientY: r0.top + r0.height / 2, bubbles: true }));
      var shown = charts.filter(function (c) { return c.querySelector('line.cursor').getAttribute('visibility') === 'visible'; }).length;
      root.setAttribute('data-cursor-selftest', (tip.hidden ? 'hidden' : 'shown') + ':' + tip.querySelectorAll('.r').length + ':' + shown);
    }
    var drawn = charts.filter(function (c) { return c.querySelectorAll('path.series').length > 0; }).length;
    root.setAttribute('data-charts-rendered', String(drawn));
    root.setAttribute('data-report-ready', nerr === 0 ? 'ok' : 'errors');
  } catch (e) {
    fail(String(e && e.message || e));
    root.setAttribute('data-report-ready', 'errors');
  }
})();
