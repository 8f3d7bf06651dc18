// Posts per day by sentiment for one saved search, spikes marked. Data comes from json_script.
(function () {
  var source = document.getElementById("chart-data");
  var canvas = document.getElementById("posts-chart");
  if (!source || !canvas || typeof Chart === "undefined") return;
  var data = JSON.parse(source.textContent);
  var style = getComputedStyle(document.documentElement);  // readable in dark mode too
  Chart.defaults.color = style.getPropertyValue("--muted").trim() || Chart.defaults.color;
  Chart.defaults.borderColor = style.getPropertyValue("--border").trim() || Chart.defaults.borderColor;
  var colours = { negative: "#c62828", neutral: "#6b7280", positive: "#2e7d32", unknown: "#b0bec5" };
  var spikeDays = new Set(data.spikes);
  var datasets = Object.keys(data.series).map(function (name) {
    return { label: name, data: data.series[name], backgroundColor: colours[name] || "#999", stack: "posts" };
  });
  datasets.push({
    type: "line", label: "spike", showLine: false, pointRadius: 7, pointStyle: "triangle",
    backgroundColor: "#ff8f00", borderColor: "#ff8f00",
    data: data.days.map(function (day, i) {
      if (!spikeDays.has(day)) return null;
      return Object.keys(data.series).reduce(function (sum, k) { return sum + data.series[k][i]; }, 0);
    }),
  });
  var chart = new Chart(canvas, {
    type: "bar",
    data: { labels: data.days, datasets: datasets },
    options: { responsive: true, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } },
  });
  canvas.dataset.chartDrawn = String(chart.data.datasets.reduce(function (n, d) {
    return n + d.data.filter(function (v) { return v !== null && v !== 0; }).length;
  }, 0));
})();
