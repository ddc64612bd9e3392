document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.from(body.rows);
      var num = th.dataset.type === 'num', dir = th.dataset.dir === 'asc' ? -1 : 1;
      th.dataset.dir = dir === 1 ? 'asc' : 'desc';
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        if (num) { x = parseFloat(x); y = parseFloat(y); x = isNaN(x) ? -1 : x; y = isNaN(y) ? -1 : y; return dir * (x - y); }
        return dir * x.localeCompare(y);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
var COLOURS = ['#9ecae1', '#fdae6b', '#a1d99b', '#bcbddc', '#fdd0a2', '#c7e9c0', '#dadaeb', '#fcbba1'];
document.querySelectorAll('section.replay').forEach(function (sec) {
  var data = JSON.parse(sec.querySelector('script').textContent);
  var rows = data.size[0], cols = data.size[1];
  var board = sec.querySelector('.board'), step = sec.querySelector('.step'), label = sec.querySelector('.label');
  board.style.gridTemplateColumns = 'repeat(' + cols + ', 22px)';
  var cells = [];
  for (var i = 0; i < rows * cols; i++) { var d = document.createElement('div'); board.appendChild(d); cells.push(d); }
  function draw(k) {
    var f = data.frames[k], last = k === data.frames.length - 1;
    cells.forEach(function (c) { c.className = ''; c.style.background = ''; });
    f.cells.forEach(function (line, r) {
      for (var c = 0; c < line.length; c++) if (line[c] === '#') cells[r * cols + c].className = (last && !data.illegal) ? 'left' : 'on';
    });
    data.goal.forEach(function (b) {
      for (var r = b[0]; r <= b[2]; r++) for (var c = b[1]; c <= b[3]; c++) cells[r * cols + c].classList.add('goal');
    });
    f.blocks.forEach(function (b, n) {
      for (var r = b[0]; r <= b[2]; r++) for (var c = b[1]; c <= b[3]; c++) cells[r * cols + c].style.background = COLOURS[n % COLOURS.length];
    });
    f.marked.forEach(function (m) { cells[m[0] * cols + m[1]].classList.add('marked'); });
    label.textContent = 'move ' + k + ' of ' + (data.frames.length - 1) + (k ? ': ' + f.step : '');
  }
  step.addEventListener('input', function () { draw(+step.value); });
  sec.querySelector('.prev').addEventListener('click', function () { step.value = Math.max(0, +step.value - 1); draw(+step.value); });
  sec.querySelector('.next').addEventListener('click', function () { step.value = Math.min(data.frames.length - 1, +step.value + 1); draw(+step.value); });
  step.value = data.frames.length - 1;
  draw(data.frames.length - 1);
});

// Filters: a select names the column (data-col) it keeps rows by; a
// search box keeps the rows holding its text.
function applyFilters(table) {
  var selects = Array.from(document.querySelectorAll('select[data-col]'));
  var search = document.getElementById('search');
  var text = search ? search.value.toLowerCase() : '';
  Array.from(table.tBodies[0].rows).forEach(function (row) {
    var keep = selects.every(function (s) { return !s.value || row.cells[+s.dataset.col].textContent === s.value; });
    if (keep && text) keep = row.textContent.toLowerCase().indexOf(text) >= 0;
    row.style.display = keep ? '' : 'none';
  });
}
document.querySelectorAll('select[data-col]').forEach(function (s) {
  s.addEventListener('change', function () { applyFilters(document.getElementById('cases')); });
});
var searchBox = document.getElementById('search');
if (searchBox) searchBox.addEventListener('input', function () { applyFilters(document.getElementById(searchBox.dataset.table)); });
