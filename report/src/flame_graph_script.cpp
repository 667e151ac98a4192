#include "flame_graph_script.hpp"

namespace sprof::report {

// Plain ES5 in one function scope, so it runs in any browser that opens SVG; it must never hold
// the CDATA end marker. Positions are computed from the sample ranges (data-s, data-n), not read
// back from the drawing, so zooming is exact however often it is repeated.
std::string_view flame_graph_script() {
  return R"js(
(function () {
  'use strict';
  var svg = document.documentElement;
  var left = +svg.getAttribute('data-graph-left');
  var width = +svg.getAttribute('data-graph-width');
  var charWidth = +svg.getAttribute('data-char-width');
  var details = document.getElementById('details');
  var matched = document.getElementById('matched');
  var searchButton = document.getElementById('search');
  var resetButton = document.getElementById('reset');
  var highlight = 'rgb(230,0,230)';
  var frames = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {
    var rect = g.querySelector('rect');
    var title = g.querySelector('title').textContent;
    return {
      g: g, rect: rect, text: g.querySelector('text'), fill: rect.getAttribute('fill'),
      title: title, name: title.split('\n')[0],
      s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'), d: +g.getAttribute('data-d')
    };
  });
  var root = frames[0];
  var searchTerm = '';

  // The same rule as the file's first labels: 3 px padding each side, '..' when cut.
  function label(frame, px) {
    var room = Math.floor((px - 6) / charWidth);
    if (room < 3) return '';
    return frame.name.length <= room ? frame.name : frame.name.slice(0, room - 2) + '..';
  }

  function place(frame, x, px) {
    frame.rect.setAttribute('x', x.toFixed(2));
    frame.rect.setAttribute('width', px.toFixed(2));
    frame.text.setAttribute('x', (x + 3).toFixed(2));
    frame.text.textContent = label(frame, px);
  }

  // Shows `target` across the whole width: what it calls below it scaled up, its callers full
  // width and faded, everything else hidden.
  function zoom(target) {
    var scale = width / target.n;
    var end = target.s + target.n;
    frames.forEach(function (f) {
      var inside = f.d >= target.d && f.s >= target.s && f.s + f.n <= end;
      var caller = f.d < target.d && f.s <= target.s && f.s + f.n >= end;
      f.g.style.display = inside || caller ? '' : 'none';
      f.g.setAttribute('class', caller ? 'f caller' : 'f');
      if (inside) place(f, left + (f.s - target.s) * scale, f.n * scale);
      else if (caller) place(f, left, width);
    });
    resetButton.style.display = target === root ? 'none' : '';
  }

  function search(term) {
    searchTerm = term;
    var pattern = null;
    try { pattern = new RegExp(term); } catch (e) { pattern = null; }
    var ranges = [];
    frames.forEach(function (f) {
      var hit = term !== '' && f !== root &&
          (pattern ? pattern.test(f.name) : f.name.indexOf(term) >= 0);
      f.rect.setAttribute('fill', hit ? highlight : f.fill);
      if (hit) ranges.push([f.s, f.s + f.n]);
    });
    if (term === '') {
      matched.textContent = '';
      searchButton.textContent = 'Search';
      return;
    }
    // A sample counts once however many matching frames are on its stack (recursion, nesting):
    // the covered share is the union of the matches' sample ranges.
    ranges.sort(function (a, b) { return a[0] - b[0]; });
    var covered = 0, reached = 0;
    ranges.forEach(function (r) {
      if (r[1] <= reached) return;
      covered += r[1] - Math.max(r[0], reached);
      reached = r[1];
    });
    matched.textContent = 'Matched: ' + (100 * covered / root.n).toFixed(2) + '%';
    searchButton.textContent = 'Clear search';
  }

  frames.forEach(function (f) {
    f.g.addEventListener('click', function () { zoom(f); });
    f.g.addEventListener('mouseover', function () {
      details.textContent = f.title.split('\n').join(' \u00b7 ');
    });
    f.g.addEventListener('mouseout', function () { details.textContent = ' '; });
  });
  resetButton.addEventListener('click', function () { zoom(root); });
  searchButton.addEventListener('click', function () {
    if (searchTerm !== '') { search(''); return; }
    var term = window.prompt('Search functions (a regular expression)', '');
    if (term) search(term);
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { search(''); zoom(root); }
  });
  // For scripts that drive the page (and the browser test): the same actions as the controls.
  window.sprofFlameGraph = {
    search: search,
    reset: function () { zoom(root); }
  };
  zoom(root);
})();
)js";
}

}  // namespace sprof::report
