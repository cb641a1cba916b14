// The labelling page: one case at a time from the server that served this page, a label
// posted as soon as it is saved, and the jurors' votes shown only in the server's reply to
// that post (they are not sent before). Every text is set with textContent, never as HTML.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { caseId: null, fields: [], chosen: {}, current: 0, saved: false, history: [], busy: false };

  async function call(path, body) {
    const options = body === undefined ? {} : {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    };
    const reply = await fetch(path, options);
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || ('HTTP ' + reply.status));
    return data;
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function fill(id, items, make) {
    const box = $(id);
    box.replaceChildren(...items.map(make));
    const section = $(id + '-box');
    if (section) section.hidden = items.length === 0;
  }

  function text(id, value) {
    $(id).textContent = value || '';
    const section = $(id + '-box');
    if (section) section.hidden = !value;
  }

  function showProgress(progress) {
    const parts = [el('b', progress.labelled + ' labelled'), document.createTextNode(' · ' + progress.left + ' left  ')];
    for (const [name, cell] of Object.entries(progress.categories)) {
      parts.push(el('span', name + ' ' + cell.labelled + '/' + (cell.labelled + cell.left), 'cat'));
    }
    $('progress').replaceChildren(...parts);
  }

  function valueText(value) {
    if (value === true) return 'pass';
    if (value === false) return 'fail';
    return String(value);
  }

  function keyFor(field, value, index) {
    if (typeof value === 'boolean') return value ? 'p' : 'f';
    if (typeof value === 'number' && value >= 0 && value <= 9) return String(value);
    if (field.values.length <= 9) return String(index + 1);
    return '';
  }

  function drawFields() {
    const boxes = state.fields.map((field, n) => {
      const box = el('div', null, 'field' + (n === state.current ? ' current' : ''));
      box.dataset.field = field.name;
      box.append(el('span', field.name, 'name'));
      const choices = el('div', null, 'choices');
      field.values.forEach((value, i) => {
        const button = el('button', valueText(value));
        button.type = 'button';
        button.dataset.value = JSON.stringify(value);
        const key = keyFor(field, value, i);
        if (key && key !== valueText(value)) button.append(' ', el('kbd', key));
        const chosen = Object.prototype.hasOwnProperty.call(state.chosen, field.name) && state.chosen[field.name] === value;
        if (chosen) button.classList.add('chosen', value === true ? 'PASS' : value === false ? 'FAIL' : 'v');
        button.addEventListener('click', () => choose(n, value));
        choices.append(button);
      });
      box.append(choices);
      return box;
    });
    $('fields').replaceChildren(...boxes);
  }

  function drawJury(jury) {
    $('jury').hidden = !jury;
    if (!jury) { $('votes').replaceChildren(); return; }
    $('jury-verdict').replaceChildren(document.createTextNode('Panel: '), el('b', jury.verdict, jury.verdict));
    $('votes').replaceChildren(...jury.votes.map((vote) => {
      const item = el('li');
      const scores = Object.entries(vote.scores).map(([k, v]) => k + ' ' + v).join(' · ');
      item.append(el('span', vote.juror, 'juror'), ' ', el('b', vote.verdict || vote.status, vote.verdict || ''));
      if (scores) item.append(el('div', scores, 'meta'));
      if (vote.reason) item.append(el('div', vote.reason));
      return item;
    }));
  }

  function showCase(data) {
    const c = data.case;
    state.caseId = c.id;
    state.fields = data.fields;
    state.chosen = data.label ? { ...data.label } : {};
    state.saved = Boolean(data.label);
    state.current = 0;
    $('case-id').textContent = c.id;
    $('case-category').textContent = c.category ? '· ' + c.category : '';
    $('case-stale').hidden = !data.stale;
    text('question', c.question);
    $('answer-title').textContent = c.answer_b ? 'Answer A' : 'Answer';
    $('answer').textContent = c.answer || '(no answer)';
    text('answer-b', c.answer_b);
    text('golden', c.golden_answer);
    text('expected', c.expected_behaviour);
    fill('context', c.context, (t) => el('li', t));
    fill('sources', c.sources, (t) => el('li', t));
    fill('tools', c.tool_calls, (t) => el('li', t.name + '(' + t.arguments + ')' + (t.result === null ? '' : ' → ' + t.result)));
    fill('turns', c.turns, (t) => { const li = el('li'); li.append(el('span', t.role, 'role'), t.content); return li; });
    $('note').value = data.note || '';
    $('saved').hidden = !state.saved;
    $('error').hidden = true;
    $('case').hidden = false;
    $('panel').hidden = false;
    $('done').hidden = true;
    $('status').hidden = true;
    drawFields();
    drawJury(data.jury);
    showProgress(data.progress);
    window.scrollTo(0, 0);
  }

  function fail(error) {
    $('error').textContent = error.message;
    $('error').hidden = false;
  }

  async function open(caseId) {
    const data = await call('/api/case/' + encodeURIComponent(caseId));
    showCase(data);
  }

  async function openNext(nextId, progress) {
    if (nextId === null) {
      state.caseId = null;
      $('case').hidden = true;
      $('panel').hidden = true;
      $('status').hidden = true;
      $('done').hidden = false;
      if (progress) showProgress(progress);
      return;
    }
    await open(nextId);
  }

  function choose(n, value) {
    if (state.saved) { state.saved = false; $('saved').hidden = true; }
    state.chosen[state.fields[n].name] = value;
    const open_ = state.fields.findIndex((f, i) => i > n && !(f.name in state.chosen));
    const any = state.fields.findIndex((f) => !(f.name in state.chosen));
    state.current = open_ >= 0 ? open_ : any >= 0 ? any : n;
    $('error').hidden = true;
    drawFields();
  }

  function complete() {
    return state.fields.every((f) => f.name in state.chosen);
  }

  async function save() {
    if (!complete()) {
      const missing = state.fields.filter((f) => !(f.name in state.chosen)).map((f) => f.name);
      fail(new Error('Still to choose: ' + missing.join(', ')));
      return;
    }
    const data = await call('/api/label', { case_id: state.caseId, labels: state.chosen, note: $('note').value || null });
    state.saved = true;
    state.next = data.next;
    $('saved').hidden = false;
    drawJury(data.jury);
    showProgress(data.progress);
  }

  async function next() {
    if (!state.saved) { await save(); return; }
    if (state.caseId) state.history.push(state.caseId);
    const data = await call('/api/state');
    await openNext(data.next, data.progress);
  }

  async function previous() {
    const caseId = state.history.pop();
    if (caseId) await open(caseId);
  }

  async function undo() {
    const data = await call('/api/undo', {});
    showProgress(data.progress);
    if (data.case_id) {
      state.history = state.history.filter((id) => id !== data.case_id);
      await open(data.case_id);
    }
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    if (event.target === $('note')) {
      if (key === 'Escape') { $('note').blur(); event.preventDefault(); }
      return;
    }
    if (state.busy) return;
    const run = (work) => {
      event.preventDefault();
      state.busy = true;
      Promise.resolve().then(work).catch(fail).finally(() => { state.busy = false; });
    };
    // Undo and back also work once every case is done.
    if (key === 'u') return run(undo);
    if (key === 'ArrowLeft') return run(previous);
    if (state.caseId === null) return;
    const field = state.fields[state.current];
    if (key === 'Enter' || key === 'ArrowRight') return run(next);
    if (key === 'n') { event.preventDefault(); $('note').focus(); return; }
    if (key === 'ArrowDown' || key === 'ArrowUp') {
      event.preventDefault();
      const step = key === 'ArrowDown' ? 1 : -1;
      state.current = (state.current + step + state.fields.length) % state.fields.length;
      drawFields();
      return;
    }
    if (key === 'p' || key === 'f') {
      const n = state.fields.findIndex((f) => f.values.includes(true) && f.values.includes(false));
      if (n >= 0) { event.preventDefault(); choose(n, key === 'p'); }
      return;
    }
    if (/^[0-9]$/.test(key) && field) {
      const digit = Number(key);
      let value;
      if (field.values.includes(digit)) value = digit;
      else if (!field.values.some((v) => typeof v === 'number') && digit >= 1 && digit <= field.values.length) value = field.values[digit - 1];
      if (value !== undefined && typeof value !== 'boolean') { event.preventDefault(); choose(state.current, value); }
    }
  }

  async function start() {
    const data = await call('/api/state');
    const asked = data.asked ? ' · asking ' + (data.asked.length === 1 && data.asked[0] === 'pass' ? 'pass/fail only' : data.asked.join(', ') + ' only') : '';
    $('who').textContent = 'labeller ' + data.labeller + ' · rubric ' + data.rubric + ' · order ' + data.order + asked;
    showProgress(data.progress);
    await openNext(data.next, data.progress);
  }

  document.addEventListener('keydown', onKey);
  $('save').addEventListener('click', () => { save().catch(fail); });
  $('undo').addEventListener('click', () => { undo().catch(fail); });
  start().catch((error) => { $('status').textContent = 'Cannot reach the labelling server: ' + error.message; });
})();
