(function () {
  var status = document.getElementById("report-status");
  function fail(message) {
    status.dataset.state = "error";
    status.textContent = "report check failed: " + message;
  }
  window.addEventListener("error", function (event) { fail(String(event.message)); });
  try {
    var chart = document.getElementById("progress-chart");
    var expected = Number(chart.dataset.iterations);
    var series = chart.querySelectorAll("g.series");
    var points = 0;
    for (var i = 0; i < series.length; i++) {
      var count = series[i].querySelectorAll("circle.point").length;
      if (count !== expected) {
        throw new Error("series " + series[i].dataset.series + " has " + count +
                        " points for " + expected + " iterations");
      }
      points += count;
    }
    var rows = document.querySelectorAll("tr.iteration").length;
    if (rows !== expected) { throw new Error(rows + " table rows for " + expected); }
    document.querySelectorAll(".legend-item").forEach(function (button) {
      button.addEventListener("click", function () {
        var on = button.getAttribute("aria-pressed") !== "true";
        button.setAttribute("aria-pressed", on ? "true" : "false");
        chart.querySelectorAll("g.series").forEach(function (g) {
          if (g.dataset.series === button.dataset.series) { g.classList.toggle("hidden", !on); }
        });
      });
    });
    status.dataset.state = "ok";
    status.dataset.points = String(points);
  } catch (error) { fail(error.message); }
})();
