// Draws every <canvas data-chart="ID"> from the JSON of <script id="ID" type="application/json">
// (Django's json_script): {"type": "bar"|"line", "labels": [...], "stacked": bool,
//  "datasets": [{"label": ..., "data": [...], "color": "#rrggbb", "type": optional}]}.
// No inline script anywhere: the dashboard's Content-Security-Policy allows only our files.
(function () {
  if (typeof Chart === "undefined") return;
  // Axis text and grid lines in the page's own colours, so the charts read in dark mode too.
  var style = getComputedStyle(document.documentElement);
  Chart.defaults.color = style.getPropertyValue("--muted").trim() || Chart.defaults.color;
  Chart.defaults.borderColor = style.getPropertyValue("--border").trim() || Chart.defaults.borderColor;
  document.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
    var source = document.getElementById(canvas.dataset.chart);
    if (!source) return;
    var spec = JSON.parse(source.textContent);
    var stacked = !!spec.stacked;
    var chart = new Chart(canvas, {
      type: spec.type || "bar",
      data: {
        labels: spec.labels,
        datasets: spec.datasets.map(function (d) {
          return {
            type: d.type, label: d.label, data: d.data, backgroundColor: d.color,
            borderColor: d.color, stack: stacked ? "all" : undefined, fill: false, tension: 0.1,
          };
        }),
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: { stacked: stacked }, y: { stacked: stacked, beginAtZero: true } },
      },
    });
    canvas.dataset.chartDrawn = String(chart.data.datasets.reduce(function (n, d) {
      return n + d.data.filter(function (v) { return v !== null; }).length;
    }, 0));
  });
})();
