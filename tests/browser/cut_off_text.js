// What a projector would show cut off or cramped on this page, as {what, text, where}; an empty list when nothing.
// - text cut off: a text node (HTML or SVG) reaching past the box of an ancestor that clips or scrolls it
//   (Streamlit's ellipsis "1 mi…", an equation or a code line scrolling sideways, a plotly title past its figure,
//   a select's value longer than its field);
// - a table wider than its box (st.dataframe draws on a canvas: its scroller), a plotly legend that scrolls,
//   tick labels or cell numbers that overlap ("1: t2: h3: i");
// - a layout of more than one column: a column or a figure narrower than the page.
() => {
  const found = [];
  const seen = new Set();
  const report = (what, text, where) => {
    const key = what + '|' + text + '|' + where;
    if (!seen.has(key)) { seen.add(key); found.push({what, text: text.slice(0, 80), where}); }
  };
  const name = (el) => el.getAttribute('data-testid') || el.getAttribute('class') || el.tagName;
  const collapsed = document.querySelector('[data-testid="stSidebar"][data-collapsed="true"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const edge = main ? main.getBoundingClientRect().right : innerWidth;  // text past it is off the screen
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const parent = node.parentElement;
    if (!parent || parent.closest('script,style,noscript,[aria-hidden="true"],.hoverlayer')) continue;
    if (collapsed && collapsed.contains(parent)) continue;
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const style = getComputedStyle(parent);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    let readOnly = false, cut = false;  // read by screen readers only; reported as cut
    for (let el = parent; el && el !== document.body; el = el.parentElement) {
      const cs = getComputedStyle(el);
      const clipX = cs.overflowX !== 'visible', clipY = cs.overflowY === 'hidden' || cs.overflowY === 'clip';
      if (!clipX && !clipY) continue;
      const box = el.getBoundingClientRect();
      if (box.width <= 2 || box.height <= 2) { readOnly = true; break; }  // visually hidden
      const tall = box.height > innerHeight / 2;  // a page-high box: text above or below it is scrolled past
      const left = box.left + el.clientLeft, top = box.top + el.clientTop;
      const right = left + (el.clientWidth || box.width), bottom = top + (el.clientHeight || box.height);
      if (clipX && (r.right > right + 1 || r.left < left - 1)) { report('cut off (width)', text, name(el)); cut = true; break; }
      if (clipY && !tall && (r.bottom > bottom + 1 || r.top < top - 1)) { report('cut off (height)', text, name(el)); cut = true; break; }
    }
    if (!readOnly && !cut && main && main.contains(parent) && r.right > edge + 1) report("past the page's edge", text, name(parent));
  }
  // A select's or a text field's value is no text node: an input scrolls it out of sight when it is too long.
  for (const input of document.querySelectorAll('[data-testid="stMain"] input')) {
    const r = input.getBoundingClientRect();
    if (input.value && r.width > 0 && input.scrollWidth > input.clientWidth + 1)
      report('cut off (field)', input.value, name(input.closest('[data-testid]') || input));
  }
  // Canvas tables (glide data grid) hold no text nodes: a table wider than its box scrolls sideways.
  for (const el of document.querySelectorAll('.dvn-scroller')) {
    if (el.scrollWidth > el.clientWidth + 1) {
      const frame = el.closest('[data-testid="stDataFrame"]');
      const head = frame ? frame.getAttribute('aria-label') || '' : '';
      report('table scrolls sideways', head || 'dataframe', `${el.scrollWidth} > ${el.clientWidth} px`);
    }
  }
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = (plot.querySelector('.gtitle') || {}).textContent || '(untitled figure)';
    for (const legend of plot.querySelectorAll('.legend')) {
      const bar = legend.querySelector('.scrollbar');
      if (bar && bar.getBoundingClientRect().height > 0) report('legend scrolls', title, 'plotly legend');
    }
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    for (const t of plot.querySelectorAll('.main-svg text')) {
      const r = t.getBoundingClientRect();
      if (r.width < 1 || !t.textContent.trim()) continue;
      if (r.left < svg.left - 1 || r.right > svg.right + 1 || r.top < svg.top - 1 || r.bottom > svg.bottom + 1)
        report('cut off by its figure', t.textContent.trim(), title);
    }
    // Tick labels of one axis, the numbers written in one heatmap's cells, the titles: none runs into another.
    const groups = [...plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')].map(axis => [...axis.querySelectorAll('text')])
      .concat([...plot.querySelectorAll('g.hm')].map(heatmap => [...heatmap.querySelectorAll('.heatmap-label text')]))
      .concat([[...plot.querySelectorAll('.g-gtitle text, .annotation-text-g text')]]);  // the title, subplots' titles
    for (const group of groups) {
      const boxes = group.map(t => [t.textContent, t.getBoundingClientRect()]).filter(([s, r]) => s.trim() && r.width > 0);
      overlap: for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 1 && h > 1) { report('labels overlap', `${a} / ${b}`, title); break overlap; }
      }
    }
  }
  const page = document.querySelector('[data-testid="stMainBlockContainer"]') || document.body;
  const full = page.clientWidth - parseFloat(getComputedStyle(page).paddingLeft)
    - parseFloat(getComputedStyle(page).paddingRight);
  for (const column of document.querySelectorAll('[data-testid="stMain"] [data-testid="stColumn"]')) {
    const r = column.getBoundingClientRect();
    if (r.width > 0 && r.width < 0.8 * full) report('beside another column', column.innerText.trim(), `${Math.round(r.width)} of ${Math.round(full)} px`);
  }
  for (const plot of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    const r = plot.getBoundingClientRect();
    if (r.width > 0 && r.width < 0.8 * full)
      report('figure not full width', (plot.querySelector('.gtitle') || {}).textContent || '(untitled figure)', `${Math.round(r.width)} of ${Math.round(full)} px`);
  }
  if (document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth + 1)
    report('page scrolls sideways', document.title, 'page');
  return found;
}
