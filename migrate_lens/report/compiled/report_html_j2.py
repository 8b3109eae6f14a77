from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.html.j2'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_view = resolve('view')
    l_0_script_hashes = resolve('script_hashes')
    l_0_root_name = resolve('root_name')
    l_0_css = resolve('css')
    l_0_d = resolve('d')
    l_0_charts = resolve('charts')
    l_0_pilot = resolve('pilot')
    l_0_w1 = resolve('w1')
    l_0_eco_items = resolve('eco_items')
    l_0_status_colors = resolve('status_colors')
    l_0_cols = resolve('cols')
    l_0_data_json = resolve('data_json')
    l_0_graph_js = resolve('graph_js')
    l_0_app_js = resolve('app_js')
    l_0_est = l_0_s = l_0_verdict = l_0_cur = l_0_unplanned = l_0_gaps = l_0_ops = missing
    try:
        t_1 = environment.filters['days']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'days' found.")
    try:
        t_2 = environment.filters['fallback']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'fallback' found.")
    try:
        t_3 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    try:
        t_4 = environment.filters['int']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'int' found.")
    try:
        t_5 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_6 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_7 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_8 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_9 = environment.filters['money']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'money' found.")
    try:
        t_10 = environment.filters['months']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'months' found.")
    try:
        t_11 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_12 = environment.filters['plural']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No filter named 'plural' found.")
    try:
        t_13 = environment.filters['round']
    except KeyError:
        @internalcode
        def t_13(*unused):
            raise TemplateRuntimeError("No filter named 'round' found.")
    try:
        t_14 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_14(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_15 = environment.filters['sum']
    except KeyError:
        @internalcode
        def t_15(*unused):
            raise TemplateRuntimeError("No filter named 'sum' found.")
    try:
        t_16 = environment.filters['tojson']
    except KeyError:
        @internalcode
        def t_16(*unused):
            raise TemplateRuntimeError("No filter named 'tojson' found.")
    try:
        t_17 = environment.filters['unique']
    except KeyError:
        @internalcode
        def t_17(*unused):
            raise TemplateRuntimeError("No filter named 'unique' found.")
    try:
        t_18 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_18(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    try:
        t_19 = environment.tests['iterable']
    except KeyError:
        @internalcode
        def t_19(*unused):
            raise TemplateRuntimeError("No test named 'iterable' found.")
    try:
        t_20 = environment.tests['mapping']
    except KeyError:
        @internalcode
        def t_20(*unused):
            raise TemplateRuntimeError("No test named 'mapping' found.")
    try:
        t_21 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_21(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    try:
        t_22 = environment.tests['string']
    except KeyError:
        @internalcode
        def t_22(*unused):
            raise TemplateRuntimeError("No test named 'string' found.")
    pass
    l_0_est = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'estimate')
    context.vars['est'] = l_0_est
    context.exported_vars.add('est')
    l_0_s = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'summary')
    context.vars['s'] = l_0_s
    context.exported_vars.add('s')
    l_0_verdict = environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'decision'), 'verdict')
    context.vars['verdict'] = l_0_verdict
    context.exported_vars.add('verdict')
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src '
    yield escape((undefined(name='script_hashes') if l_0_script_hashes is missing else l_0_script_hashes))
    yield '; style-src \'unsafe-inline\'; img-src data: blob:; connect-src \'none\'; font-src \'none\'; base-uri \'none\'; form-action \'none\'">\n<meta name="referrer" content="no-referrer">\n<title>PyTorch → JAX assessment: '
    yield escape((undefined(name='root_name') if l_0_root_name is missing else l_0_root_name))
    yield '</title>\n<style>'
    yield escape((undefined(name='css') if l_0_css is missing else l_0_css))
    yield '</style>\n</head>\n<body>\n<header class="top">\n  <div class="brand">migrate-lens <span class="muted">'
    yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tool'), 'version'))
    yield '</span></div>\n  <nav class="toc" aria-label="Sections">\n    <a href="#overview">Overview</a><a href="#charts">Charts</a><a href="#plan">Plan</a><a href="#scope">Scope</a><a href="#dependencies">Dependencies</a><a href="#copies">Copies</a><a href="#modules">Modules</a><a href="#graph">Graph</a><a href="#findings">Findings</a><a href="#checklist">Checklist</a>'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'skipped'):
        pass
        yield '<a href="#skipped">Skipped</a>'
    yield '<a href="#method">Method</a>'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'stubs'):
        pass
        yield '<a href="#stubs">Stubs</a>'
    if t_18(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'probe')):
        pass
        yield '<a href="#probe">Probe</a>'
    yield '  </nav>\n</header>\n<main>\n<section id="overview" class="first-screen">\n  <h1>Should <span class="project">'
    yield escape((undefined(name='root_name') if l_0_root_name is missing else l_0_root_name))
    yield '</span> move from PyTorch to JAX?</h1>\n  <p class="muted small">Scanned '
    yield escape(t_12(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'files_scanned'), 'file'))
    yield ' ('
    yield escape(t_11(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'lines_of_code')))
    yield ' lines) in '
    yield escape(t_3('%.1f', environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'duration_s')))
    yield ' s · '
    yield escape(t_12(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'findings_total'), 'finding'))
    if environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'findings_ignored'):
        pass
        yield ' ('
        yield escape(t_11(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'findings_ignored')))
        yield ' ignored)'
    if environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'files_skipped'):
        pass
        yield ' · '
        yield escape(t_12(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'files_skipped'), 'file'))
        yield ' skipped'
    yield ' · root <code>'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'root'))
    yield '</code></p>\n'
    l_0_cur = environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'currency')
    context.vars['cur'] = l_0_cur
    context.exported_vars.add('cur')
    yield '  <div class="decision verdict-'
    yield escape((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict))
    yield '" data-testid="decision">\n    <div class="verdict" data-testid="verdict" data-verdict="'
    yield escape((undefined(name='verdict') if l_0_verdict is missing else l_0_verdict))
    yield '">'
    yield escape(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'verdict_plain'))
    yield '</div>\n    <div class="decision-body">\n      <p class="headline" data-testid="headline">'
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'decision'), 'headline'))
    yield '</p>\n      <p class="muted small" data-testid="decided-by">Decided by: '
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'decision'), 'decided_by'))
    yield '.</p>\n    </div>\n  </div>\n  <div class="kpis">\n    <div class="kpi" data-testid="kpi-effort">\n      <div class="kpi-label">Effort (person-days)</div>\n      <div class="kpi-value"><span data-fact="effort.p50" data-testid="effort-p50">'
    yield escape(t_1(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'effort_person_days'), 'p50')))
    yield '</span> <span class="kpi-unit">likely</span></div>\n      <div class="kpi-note">at most <span data-fact="effort.p90" data-testid="effort-p90">'
    yield escape(t_1(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'effort_person_days'), 'p90')))
    yield '</span> with 90% confidence (P90); at least <span data-fact="effort.p10">'
    yield escape(t_1(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'effort_person_days'), 'p10')))
    yield '</span> with 90% confidence (P10)</div>\n      <div class="kpi-note muted">'
    if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calibration'), 'within_calibration'):
        pass
        yield 'within'
    else:
        pass
        yield 'outside'
    yield ' the calibrated range (ports of 0.5k–8k code lines by JAX-fluent teams; this scope: <span data-fact="code_lines">'
    yield escape(t_11(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'code_lines')))
    yield '</span> code lines)</div>\n    </div>\n    <div class="kpi" data-testid="kpi-calendar">\n      <div class="kpi-label">Calendar time</div>\n      <div class="kpi-value"><span data-fact="calendar.p50" data-testid="calendar-p50">'
    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calendar_months'), 'p50')))
    yield '</span> <span class="kpi-unit">likely</span></div>\n      <div class="kpi-note">at most <span data-fact="calendar.p90" data-testid="calendar-p90">'
    yield escape(t_10(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calendar_months'), 'p90')))
    yield '</span> with 90% confidence · team of '
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'team_size'))
    yield ', JAX experience: '
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'team_experience'))
    yield '</div>\n    </div>\n    <div class="kpi kpi-gauge" data-testid="kpi-risk">\n      <div class="kpi-label">Risk</div>\n      <figure class="gauge" data-testid="risk-score" data-score="'
    yield escape(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'risk_score'))
    yield '">'
    yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'gauge'))
    yield '</figure>\n    </div>\n    <div class="kpi" data-testid="kpi-payback">\n      <div class="kpi-label">Cost and payback</div>\n      <div class="kpi-value"><span data-fact="cost.p50" data-testid="cost-p50">'
    yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'cost'), 'p50'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield '</span> <span class="kpi-unit">likely cost</span></div>\n'
    if (not environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'cost'), 'p50')):
        pass
        yield '      <div class="kpi-note" data-testid="payback">Nothing to port: no payback to compute</div>\n'
    elif t_21(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'mid')):
        pass
        yield '      <div class="kpi-note" data-testid="payback">No monthly spend given: pays back within '
        yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'horizon_months')))
        yield ' months if the monthly accelerator spend is at least <span data-fact="breakeven">'
        yield escape(t_9(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'breakeven_monthly_spend'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
        yield '</span> (break-even)</div>\n'
    else:
        pass
        yield '      <div class="kpi-note" data-testid="payback">Payback <span data-fact="payback.mid">'
        yield escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'mid')))
        yield '</span> at a '
        yield escape(t_4(t_13(((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'low') + environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'high')) * 50))))
        yield '% saving (<span data-fact="payback.low">'
        yield escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'low')))
        yield '</span> at '
        yield escape(t_4(t_13((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'high') * 100))))
        yield '%, <span data-fact="payback.high">'
        yield escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'high')))
        yield '</span> at '
        yield escape(t_4(t_13((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'low') * 100))))
        yield '%) · horizon '
        yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'horizon_months')))
        yield ' months</div>\n      <div class="kpi-note">Net after 12 months: <span data-fact="net12.low">'
        yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'net_12_months'), 'low'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
        yield '</span> to <span data-fact="net12.high">'
        yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'net_12_months'), 'high'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
        yield '</span></div>\n'
    yield '      <div class="kpi-note muted" data-testid="day-rate">at <span data-fact="day_rate">'
    yield escape(t_9(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'day_rate'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield '</span> per person-day'
    if (not (undefined(name='cur') if l_0_cur is missing else l_0_cur)):
        pass
        yield ' (no currency set: <code>--currency</code>)'
    yield '</div>\n    </div>\n  </div>\n  <p class="legend-line" data-testid="status-legend">'
    l_1_loop = missing
    for (l_1_st, l_1_n), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'status_counts'), 'items')), undefined):
        _loop_vars = {}
        pass
        yield '<span class="chip status-'
        yield escape(l_1_st)
        yield '">'
        yield escape(l_1_st)
        yield '</span> '
        yield escape(environment.getitem(environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'status_plain'), l_1_st))
        yield ' ('
        yield escape(t_11(l_1_n))
        yield ')'
        if (not environment.getattr(l_1_loop, 'last')):
            pass
            yield ' · '
    l_1_loop = l_1_st = l_1_n = missing
    yield '</p>\n  <div class="two-col">\n    <div>\n      <h2>Why</h2>\n      <ul class="reasons" data-testid="reasons">\n'
    for l_1_r in environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'decision'), 'reasons'):
        _loop_vars = {}
        pass
        yield '<li>'
        yield escape(l_1_r)
        yield '</li>'
    l_1_r = missing
    yield '      </ul>\n      <h2>Biggest blockers</h2>\n'
    if environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'blockers'):
        pass
        yield '      <ol class="blockers" data-testid="blockers">\n'
        for l_1_b in environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'blockers'):
            _loop_vars = {}
            pass
            yield '        <li class="blocker porting-'
            yield escape(environment.getattr(l_1_b, 'porting'))
            yield '">\n          <div class="blocker-title">'
            yield escape(environment.getattr(l_1_b, 'plain'))
            yield '</div>\n          <div class="blocker-detail">'
            yield escape(t_12(environment.getattr(l_1_b, 'count'), 'place'))
            yield ' in '
            yield escape(t_12(environment.getattr(l_1_b, 'files'), 'file'))
            yield ', about <span data-fact="blocker.'
            yield escape(environment.getattr(l_1_b, 'category'))
            yield '">'
            yield escape(t_1(environment.getattr(l_1_b, 'effort_person_days')))
            yield '</span> person-days likely · <a href="#findings" data-filter-cat="'
            yield escape(environment.getattr(l_1_b, 'category'))
            yield '">'
            yield escape(environment.getattr(l_1_b, 'category'))
            yield ': '
            yield escape(t_5(context.eval_ctx, environment.getattr(l_1_b, 'rules'), ', '))
            yield '</a> · e.g. <code>'
            yield escape(environment.getattr(l_1_b, 'example'))
            yield '</code></div>\n        </li>\n'
        l_1_b = missing
        yield '      </ol>\n'
    else:
        pass
        yield '      <p>No finding blocks the port or forces a redesign.</p>\n'
    yield '    </div>\n    <div>\n      <h2>Where to start</h2>\n'
    if environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'pilot'):
        pass
        l_0_pilot = environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'pilot')
        context.vars['pilot'] = l_0_pilot
        context.exported_vars.add('pilot')
        yield '      <div class="pilot" data-testid="pilot">\n        <p><strong>Pilot:</strong> <code>'
        yield escape(environment.getattr((undefined(name='pilot') if l_0_pilot is missing else l_0_pilot), 'root'))
        yield '</code> and '
        yield escape(t_12((t_6(environment.getattr((undefined(name='pilot') if l_0_pilot is missing else l_0_pilot), 'modules')) - 1), 'module'))
        yield ' it needs, <span data-fact="pilot.p50">'
        yield escape(t_1(environment.getattr(environment.getattr((undefined(name='pilot') if l_0_pilot is missing else l_0_pilot), 'effort_person_days'), 'p50')))
        yield '</span> person-days likely.</p>\n'
        if environment.getattr((undefined(name='pilot') if l_0_pilot is missing else l_0_pilot), 'retires'):
            pass
            yield '<p>Risks it retires: '
            l_1_loop = missing
            for l_1_r, l_1_loop in LoopContext(environment.getattr((undefined(name='pilot') if l_0_pilot is missing else l_0_pilot), 'retires'), undefined):
                _loop_vars = {}
                pass
                yield '<code>'
                yield escape(l_1_r)
                yield '</code>'
                if (not environment.getattr(l_1_loop, 'last')):
                    pass
                    yield '; '
            l_1_loop = l_1_r = missing
            yield '.</p>'
        yield '      </div>\n'
    elif environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'waves'):
        pass
        l_0_w1 = environment.getitem(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'waves'), 0)
        context.vars['w1'] = l_0_w1
        context.exported_vars.add('w1')
        yield '      <div class="pilot" data-testid="pilot">\n        <p><strong>No single model class makes a pilot</strong> (none with dependents ports within the pilot budget), so start with wave 1: '
        l_1_loop = missing
        for l_1_q, l_1_loop in LoopContext(environment.getattr((undefined(name='w1') if l_0_w1 is missing else l_0_w1), 'modules')[:3], undefined):
            _loop_vars = {}
            pass
            yield '<code>'
            yield escape(l_1_q)
            yield '</code>'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_q = missing
        if (t_6(environment.getattr((undefined(name='w1') if l_0_w1 is missing else l_0_w1), 'modules')) > 3):
            pass
            yield ' and '
            yield escape(t_12((t_6(environment.getattr((undefined(name='w1') if l_0_w1 is missing else l_0_w1), 'modules')) - 3), 'more module'))
        yield ', <span data-fact="wave1.p50">'
        yield escape(t_1(environment.getattr(environment.getattr((undefined(name='w1') if l_0_w1 is missing else l_0_w1), 'effort_person_days'), 'p50')))
        yield '</span> person-days likely.</p>\n      </div>\n'
    else:
        pass
        yield '      <p>No pilot proposed: nothing in scope to port.</p>\n'
    if environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'drivers'):
        pass
        yield '      <h3>What drives the effort</h3>\n      <ul class="drivers">\n'
        l_1_loop = missing
        for l_1_dr, l_1_loop in LoopContext(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'drivers')[:5], undefined):
            _loop_vars = {}
            pass
            yield '<li><span class="bar" style="--share: '
            yield escape(t_13((environment.getattr(l_1_dr, 'share') * 100), 1))
            yield '%"></span>'
            yield escape(environment.getattr(l_1_dr, 'label'))
            yield ' <span class="muted"><span data-fact="driver.'
            yield escape(environment.getattr(l_1_loop, 'index'))
            yield '">'
            yield escape(t_1(environment.getattr(l_1_dr, 'effort_person_days')))
            yield '</span> person-days ('
            yield escape(t_4(t_13((environment.getattr(l_1_dr, 'share') * 100))))
            yield '%)</span></li>'
        l_1_loop = l_1_dr = missing
        yield '      </ul>\n'
    yield '    </div>\n  </div>\n</section>\n\n<section id="charts">\n  <h2>Where the work and the risk are</h2>\n  <div class="chart-grid">\n    <figure><figcaption>Where the work is: person-days likely by kind of work (adds up to the total)</figcaption>'
    yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'effort_by_category'))
    yield '</figure>\n    <figure><figcaption>Findings by severity</figcaption>'
    yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'findings_by_severity'))
    yield '</figure>\n    <figure class="wide"><figcaption>Riskiest modules × category (finding counts)</figcaption>'
    yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'heatmap'))
    yield '</figure>\n    <figure><figcaption>Effort per migration wave</figcaption>'
    yield escape(environment.getattr((undefined(name='charts') if l_0_charts is missing else l_0_charts), 'waves'))
    yield '</figure>\n  </div>\n</section>\n\n<section id="plan">\n  <h2>Migration plan</h2>\n  <p class="muted">Waves follow the dependency graph: a module is ported after what it uses. Effort in person-days, likely (P50) and with 90% confidence (P90).</p>\n'
    if environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'waves'):
        pass
        yield '  <ol class="waves" data-testid="waves">\n'
        for l_1_w in environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'plan'), 'waves'):
            _loop_vars = {}
            pass
            yield '    <li class="wave"><div class="wave-head">Wave '
            yield escape(environment.getattr(l_1_w, 'index'))
            yield ' · '
            yield escape(t_12(t_6(environment.getattr(l_1_w, 'modules')), 'module'))
            yield ' · '
            yield escape(t_1(environment.getattr(environment.getattr(l_1_w, 'effort_person_days'), 'p50')))
            yield '–'
            yield escape(t_1(environment.getattr(environment.getattr(l_1_w, 'effort_person_days'), 'p90')))
            yield ' person-days</div>\n      <ul class="wave-mods">\n'
            for l_2_q in environment.getattr(l_1_w, 'modules')[:30]:
                l_2_by_qual = resolve('by_qual')
                l_2_m = missing
                _loop_vars = {}
                pass
                l_2_m = context.call(environment.getattr((undefined(name='by_qual') if l_2_by_qual is missing else l_2_by_qual), 'get'), l_2_q, _loop_vars=_loop_vars)
                _loop_vars['m'] = l_2_m
                yield '<li>'
                if (undefined(name='m') if l_2_m is missing else l_2_m):
                    pass
                    yield '<span class="dot status-'
                    yield escape(environment.getattr((undefined(name='m') if l_2_m is missing else l_2_m), 'status'))
                    yield '" title="'
                    yield escape(environment.getattr((undefined(name='m') if l_2_m is missing else l_2_m), 'status'))
                    yield '"></span>'
                yield '<code>'
                yield escape(l_2_q)
                yield '</code></li>'
            l_2_q = l_2_by_qual = l_2_m = missing
            if (t_6(environment.getattr(l_1_w, 'modules')) > 30):
                pass
                yield '<li class="muted">… and '
                yield escape(t_11((t_6(environment.getattr(l_1_w, 'modules')) - 30)))
                yield ' more (see the module table, filter by wave)</li>'
            yield '      </ul>\n    </li>\n'
        l_1_w = missing
        yield '  </ol>\n'
    else:
        pass
        yield '  <p>No waves planned.</p>\n'
    l_0_unplanned = t_7(context.eval_ctx, t_14(context, environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'modules'), 'wave', 'none'))
    context.vars['unplanned'] = l_0_unplanned
    context.exported_vars.add('unplanned')
    if (undefined(name='unplanned') if l_0_unplanned is missing else l_0_unplanned):
        pass
        yield '<p class="muted">'
        yield escape(t_12(t_6((undefined(name='unplanned') if l_0_unplanned is missing else l_0_unplanned)), 'module'))
        yield ' not planned in any wave (blocked or nothing to port).</p>'
    yield '</section>\n\n<section id="scope" data-testid="scope">\n  <h2>Scope</h2>\n'
    if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'entries'):
        pass
        yield '  <p>The estimate covers what the entries reach: '
        l_1_loop = missing
        for l_1_e, l_1_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'entries'), undefined):
            _loop_vars = {}
            pass
            yield '<code>'
            yield escape(l_1_e)
            yield '</code>'
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
        l_1_loop = l_1_e = missing
        yield ' ('
        yield escape(t_12(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'units_in_scope'), 'unit'))
        yield '). Out of scope: '
        yield escape(t_12(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope_total'), 'unit'))
        yield '.</p>\n'
        if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope'):
            pass
            yield '<details><summary>Units out of scope</summary><ul class="cols">'
            for l_1_q in environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope'):
                _loop_vars = {}
                pass
                yield '<li><code>'
                yield escape(l_1_q)
                yield '</code></li>'
            l_1_q = missing
            if (environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope_total') > t_6(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope'))):
                pass
                yield '<li class="muted">… and '
                yield escape(t_11((environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope_total') - t_6(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'scope'), 'out_of_scope')))))
                yield ' more (report.json)</li>'
            yield '</ul></details>'
    else:
        pass
        yield '  <p>No entries given (<code>--entry pkg.mod:Name</code> or <code>entries</code> in <code>[tool.migrate-lens]</code>): the estimate covers every unit. If you only port one model, its own units cost:</p>\n'
    if environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models'):
        pass
        yield '  <table class="grid" data-testid="top-models">\n    <thead><tr><th>Top-level model (no other module holds it)</th><th class="num">Units</th><th class="num">Code lines</th><th class="num">Person-days likely</th><th class="num">with 90% confidence</th></tr></thead>\n    <tbody>'
        for l_1_m in environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models'):
            _loop_vars = {}
            pass
            yield '<tr><td><code>'
            yield escape(environment.getattr(l_1_m, 'qualname'))
            yield '</code></td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_m, 'units')))
            yield '</td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_m, 'code_lines')))
            yield '</td><td class="num">'
            yield escape(t_1(environment.getattr(environment.getattr(l_1_m, 'effort_person_days'), 'p50')))
            yield '</td><td class="num">'
            yield escape(t_1(environment.getattr(environment.getattr(l_1_m, 'effort_person_days'), 'p90')))
            yield '</td></tr>'
        l_1_m = missing
        yield '</tbody>\n  </table>\n  <p class="muted small">'
        yield escape(t_12(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models_total'), 'top-level model'))
        yield ' in scope'
        if (environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models_total') > t_6(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models'))):
            pass
            yield ', the '
            yield escape(t_6(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'top_level_models')))
            yield ' largest shown'
        yield '; units only (dependencies and one-off tasks are shared).</p>\n'
    yield '</section>\n\n<section id="dependencies" data-testid="dependencies">\n  <h2>Dependencies to replace</h2>\n'
    l_0_gaps = t_7(context.eval_ctx, t_14(context, environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'dependencies'), 'category', 'equalto', 'ecosystem-dependency'))
    context.vars['gaps'] = l_0_gaps
    context.exported_vars.add('gaps')
    l_0_ops = t_7(context.eval_ctx, t_14(context, environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'dependencies'), 'category', 'equalto', 'custom-op'))
    context.vars['ops'] = l_0_ops
    context.exported_vars.add('ops')
    yield '  <h3>Ecosystem gaps (PyTorch library → JAX counterpart)</h3>\n'
    if (undefined(name='gaps') if l_0_gaps is missing else l_0_gaps):
        pass
        yield '  <table class="grid" data-testid="ecosystem-gaps">\n    <thead><tr><th>PyTorch-side dependency</th><th>JAX counterpart</th><th class="num">Import sites</th><th class="num">Person-days likely</th><th>Where</th></tr></thead>\n    <tbody>'
        for l_1_g in (undefined(name='gaps') if l_0_gaps is missing else l_0_gaps):
            _loop_vars = {}
            pass
            yield '<tr><td><code>'
            yield escape(environment.getattr(l_1_g, 'name'))
            yield '</code></td><td>'
            if (environment.getattr(l_1_g, 'porting') == 'mechanical'):
                pass
                yield 'yes: swap in the JAX counterpart'
            elif (environment.getattr(l_1_g, 'porting') == 'blocked'):
                pass
                yield 'none: needs a Pallas kernel or an XLA FFI call'
            else:
                pass
                yield 'none: reimplement it in JAX'
            yield ' ('
            yield escape(environment.getattr(l_1_g, 'rule'))
            yield ', <a href="#findings" data-filter-rule="'
            yield escape(environment.getattr(l_1_g, 'code'))
            yield '">'
            yield escape(environment.getattr(l_1_g, 'code'))
            yield '</a>)</td><td class="num">'
            yield escape(t_11(t_6(environment.getattr(l_1_g, 'sites'))))
            yield '</td><td class="num">'
            yield escape(t_1(environment.getattr(l_1_g, 'effort_person_days')))
            yield '</td><td><code>'
            yield escape(t_5(context.eval_ctx, environment.getattr(l_1_g, 'sites')[:3], ', '))
            yield '</code>'
            if (t_6(environment.getattr(l_1_g, 'sites')) > 3):
                pass
                yield ' …'
            yield '</td></tr>'
        l_1_g = missing
        yield '</tbody>\n  </table>\n'
    else:
        pass
        l_0_eco_items = t_7(context.eval_ctx, t_14(context, environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'checklist'), 'item', 'equalto', 'ecosystem gaps'))
        context.vars['eco_items'] = l_0_eco_items
        context.exported_vars.add('eco_items')
        if ((undefined(name='eco_items') if l_0_eco_items is missing else l_0_eco_items) and (environment.getattr(environment.getitem((undefined(name='eco_items') if l_0_eco_items is missing else l_0_eco_items), 0), 'status') != 'ok')):
            pass
            yield '<p>No import is priced as a dependency, but the code relies on PyTorch-only pieces ('
            yield escape(environment.getattr(environment.getitem((undefined(name='eco_items') if l_0_eco_items is missing else l_0_eco_items), 0), 'detail'))
            yield '): plan their replacement; findings, where a rule knows them, show where they are used.</p>\n'
        else:
            pass
            yield '<p>None found: no import of a library that the rule catalog knows to lack a JAX counterpart (libraries it does not know are not judged).</p>'
    yield '  <h3>Custom ops and compiled libraries</h3>\n  <table class="grid" data-testid="custom-ops">\n    <thead><tr><th>Op or library</th><th>JAX route</th><th>Fallback in code</th><th class="num">Sites</th><th class="num">Person-days likely</th></tr></thead>\n    <tbody>\n'
    for l_1_o in (undefined(name='ops') if l_0_ops is missing else l_0_ops):
        _loop_vars = {}
        pass
        yield '<tr><td><code>'
        yield escape(environment.getattr(l_1_o, 'name'))
        yield '</code> ('
        yield escape(environment.getattr(l_1_o, 'rule'))
        yield ')</td><td>'
        if environment.getattr(l_1_o, 'jax_route'):
            pass
            yield 'yes: a JAX equivalent ('
            yield escape(environment.getattr(l_1_o, 'code'))
            yield ' remedy)'
        else:
            pass
            yield 'none: needs a Pallas kernel or an XLA FFI call'
        yield '</td><td data-testid="fallback">'
        yield escape(t_2(environment.getattr(l_1_o, 'fallback_sites'), t_6(environment.getattr(l_1_o, 'sites')), environment.getattr(l_1_o, 'fallback')))
        yield '</td><td class="num">'
        yield escape(t_11(t_6(environment.getattr(l_1_o, 'sites'))))
        yield '</td><td class="num">'
        yield escape(t_1(environment.getattr(l_1_o, 'effort_person_days')))
        yield '</td></tr>'
    l_1_o = missing
    for l_1_row in environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'custom_op_rows'):
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_row, 'name'))
        yield ' ('
        yield escape(environment.getattr(l_1_row, 'code'))
        yield ')</td><td>'
        if environment.getattr(l_1_row, 'blocked'):
            pass
            yield 'none: needs a Pallas kernel or an XLA FFI call'
        else:
            pass
            yield 'yes: '
            yield escape(environment.getattr(l_1_row, 'route'))
        yield '</td><td data-testid="fallback">'
        yield escape(environment.getattr(l_1_row, 'fallback'))
        yield '</td><td class="num">'
        yield escape(t_11(environment.getattr(l_1_row, 'count')))
        yield '</td><td class="num">per site</td></tr>'
    l_1_row = missing
    if ((not (undefined(name='ops') if l_0_ops is missing else l_0_ops)) and (not environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'custom_op_rows'))):
        pass
        yield '<tr><td colspan="5">No custom ops.</td></tr>'
    yield '    </tbody>\n  </table>\n</section>\n\n<section id="copies" data-testid="copies">\n  <h2>Copies priced as copies</h2>\n  <p>'
    yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'copied_code_lines')))
    yield ' code lines in scope are copies of other code (<code># Copied from</code> markers, <code>modular_*.py</code> sources of generated files, or the same code up to names, strings and comments); each copy is priced at '
    yield escape(t_4(t_13((environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'fraction') * 100))))
    yield '% of porting it from scratch. '
    yield escape(t_12(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'families_total'), 'copy family'))
    if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'families'):
        pass
        yield ', the largest:'
    else:
        pass
        yield '.'
    yield '</p>\n'
    if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'families'):
        pass
        yield '  <table class="grid" data-testid="copy-families">\n    <thead><tr><th>Original</th><th class="num">Copies</th><th class="num">Copied code lines</th><th>Evidence</th><th>Examples</th></tr></thead>\n    <tbody>'
        for l_1_f in environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'copies'), 'families')[:15]:
            _loop_vars = {}
            pass
            yield '<tr><td><code>'
            yield escape(environment.getattr(l_1_f, 'original'))
            yield '</code></td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_f, 'copies_total')))
            yield '</td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_f, 'copied_code_lines')))
            yield '</td><td>'
            yield escape(t_5(context.eval_ctx, t_17(environment, t_8(context, environment.getattr(l_1_f, 'copies'), attribute='evidence')), ', '))
            yield '</td><td><code>'
            yield escape(t_5(context.eval_ctx, t_8(context, environment.getattr(l_1_f, 'copies')[:2], attribute='qualname'), ', '))
            yield '</code>'
            if (environment.getattr(l_1_f, 'copies_total') > 2):
                pass
                yield ' …'
            yield '</td></tr>'
        l_1_f = missing
        yield '</tbody>\n  </table>\n'
    yield '</section>\n\n<section id="modules">\n  <h2>Modules</h2>\n  <div class="controls noprint" role="search">\n    <label>Find <input type="search" id="mod-q" placeholder="name or path" data-testid="mod-filter-text"></label>\n    <label>Status <select id="mod-status" data-testid="mod-filter-status"><option value="">all</option>'
    for l_1_st in environment.getattr((undefined(name='d') if l_0_d is missing else l_0_d), 'status_counts'):
        _loop_vars = {}
        pass
        yield '<option value="'
        yield escape(l_1_st)
        yield '">'
        yield escape(l_1_st)
        yield '</option>'
    l_1_st = missing
    yield '</select></label>\n    <label>Min risk <input type="number" id="mod-risk" min="0" max="100" value="0" data-testid="mod-filter-risk"></label>\n    <label>Min effort P50 <input type="number" id="mod-effort" min="0" step="0.1" value="0"></label>\n    <span class="muted" id="mod-count" data-testid="mod-count"></span>\n  </div>\n  <table class="grid" id="mod-table" data-testid="mod-table">\n    <thead><tr>\n      <th data-sort="qualname">Module</th><th data-sort="kind">Kind</th><th data-sort="status">Status</th>\n      <th data-sort="risk" class="num">Risk</th><th data-sort="p50" class="num">Effort P50</th><th data-sort="p90" class="num">P90</th>\n      <th data-sort="findings" class="num">Findings</th><th data-sort="wave" class="num">Wave</th><th data-sort="loc" class="num">Lines</th>\n    </tr></thead>\n    <tbody id="mod-body"></tbody>\n  </table>\n  <button type="button" class="more noprint" id="mod-more">Show more</button>\n  <noscript><p>The module table needs JavaScript; report.json has the same data.</p></noscript>\n</section>\n\n<section id="graph">\n  <h2>Dependency graph</h2>\n  <p class="muted noprint">Grouped by directory; click a group to open it, a module to see its details. Colours: status mix of the modules inside.</p>\n  <div class="graph-bar noprint">\n    <nav id="graph-crumbs" class="crumbs" aria-label="Graph location" data-testid="graph-crumbs"></nav>\n    <label>Find <input type="search" id="graph-q" list="graph-ids" placeholder="class, function or module name" data-testid="graph-find"></label>\n    <datalist id="graph-ids"></datalist>\n    <span id="graph-find-msg" class="muted" role="status" data-testid="graph-find-msg"></span>\n    <label><input type="checkbox" id="graph-libs" data-testid="graph-libs"> show standard-library and small third-party nodes</label>\n    <span class="legend">'
    for (l_1_st, l_1_c) in context.call(environment.getattr((undefined(name='status_colors') if l_0_status_colors is missing else l_0_status_colors), 'items')):
        _loop_vars = {}
        pass
        yield '<span class="chip status-'
        yield escape(l_1_st)
        yield '">'
        yield escape(l_1_st)
        yield '</span>'
    l_1_st = l_1_c = missing
    yield '<span class="chip status-external">external</span></span>\n  </div>\n  <p id="graph-hint" class="muted small noprint" role="status" data-testid="graph-hint"></p>\n  <div class="graph-wrap">\n    <div id="cy" data-testid="graph" aria-label="Dependency graph"></div>\n    <aside id="graph-info" class="graph-info" data-testid="graph-info"><p class="muted">Click a node.</p></aside>\n  </div>\n  <img id="graph-print" class="print-only" alt="Dependency graph (as last shown on screen)">\n</section>\n\n<section id="findings">\n  <h2>Findings</h2>\n  <div class="chips noprint" id="cat-chips" data-testid="cat-chips"></div>\n  <div class="controls noprint">\n    <label>Category <select id="f-cat" data-testid="f-cat"><option value="">all</option></select></label>\n    <label>Rule <select id="f-rule" data-testid="f-rule"><option value="">all</option></select></label>\n    <label>Severity <select id="f-sev"><option value="">all</option></select></label>\n    <label>File <input type="search" id="f-file" list="f-files" placeholder="path" data-testid="f-file"></label>\n    <datalist id="f-files"></datalist>\n    <label>Text <input type="search" id="f-q" placeholder="symbol, message, code"></label>\n    <span class="muted" id="f-count" data-testid="f-count"></span>\n  </div>\n  <div id="f-list" class="findings" data-testid="f-list"></div>\n  <div class="pager noprint"><button type="button" id="f-prev">← Previous</button> <span id="f-page"></span> <button type="button" id="f-next">Next →</button></div>\n  <noscript><p>The findings browser needs JavaScript; report.json and report.sarif have every finding.</p></noscript>\n</section>\n\n<section id="checklist">\n  <h2>Readiness checklist</h2>\n  <table class="grid" data-testid="checklist">\n    <thead><tr><th>Item</th><th>Status</th><th>Detail</th></tr></thead>\n    <tbody>\n'
    for l_1_c in environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'checklist'):
        _loop_vars = {}
        pass
        yield '<tr class="check-'
        yield escape(environment.getattr(l_1_c, 'status'))
        yield '"><td>'
        yield escape(environment.getattr(l_1_c, 'item'))
        yield '</td><td><span class="chip check-'
        yield escape(environment.getattr(l_1_c, 'status'))
        yield '">'
        yield escape(environment.getattr(l_1_c, 'status'))
        yield '</span></td><td>'
        yield escape(environment.getattr(l_1_c, 'detail'))
        yield '</td></tr>'
    l_1_c = missing
    yield '    </tbody>\n  </table>\n</section>\n\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'skipped'):
        pass
        yield '<section id="skipped">\n  <h2>Skipped files</h2>\n  <p class="muted">Not analyzed; their obstacles are not counted in the estimate.</p>\n  <table class="grid" data-testid="skipped">\n    <thead><tr><th>File</th><th>Reason</th></tr></thead>\n    <tbody>'
        for l_1_k in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'skipped'):
            _loop_vars = {}
            pass
            yield '<tr><td><code>'
            yield escape(environment.getattr(l_1_k, 'path'))
            yield '</code></td><td>'
            yield escape(environment.getattr(l_1_k, 'reason'))
            yield '</td></tr>'
        l_1_k = missing
        yield '</tbody>\n  </table>\n</section>\n'
    yield '\n<section id="method">\n  <h2>How this was estimated</h2>\n  <ul>\n    <li>Every obstacle comes from a static scan (no code was run): '
    yield escape(t_12(t_6(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'rules')), 'rule'))
    yield ' look for patterns that stop <code>jax.jit</code> or need a redesign, each with a three-point effort in hours (optimistic / likely / pessimistic).</li>\n    <li>A unit costs a porting effort from its code lines (not blank lines, comments or docstrings) plus its findings; copies cost '
    yield escape(t_4(t_13((environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calibration'), 'copy_fraction') * 100))))
    yield '% of that; every dependency without a JAX twin is priced once, and one-off tasks only when code in scope calls them ('
    yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'hours_per_day')))
    yield ' hours a day).</li>\n    <li>The sum is calibrated on real ports of 0.5k–8k code lines by JAX-fluent teams (docs/estimation.md): "likely" (P50) means half of such ports took less; the 80% band runs from the P50 divided by '
    yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calibration'), 'band_ratio'), 2))
    yield ' (P10) to the P50 times '
    yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'calibration'), 'band_ratio'), 2))
    yield ' (P90). Outside that size the band is an extrapolation. Team experience "'
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'team_experience'))
    yield '" multiplies effort by '
    yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'experience_multiplier'), 2))
    yield '.</li>\n    <li>Calendar time assumes a team of '
    yield escape(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'team_size'))
    yield '. Cost uses a day rate of '
    yield escape(t_9(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'assumptions'), 'day_rate'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield '.</li>\n    <li>Not counted: skipped files ('
    yield escape(t_11(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'files_skipped')))
    yield '), files that never mention torch ('
    yield escape(t_11(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'files_prefiltered')))
    yield ', import graph only)'
    if environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_errors'):
        pass
        yield ', and '
        yield escape(t_12(environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_errors'), 'rule error'))
    yield '.</li>\n  </ul>\n'
    if environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'risk_components'):
        pass
        yield '  <h3>Risk score '
        yield escape(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'risk_score'))
        yield '/100</h3>\n  <table class="grid" data-testid="risk-components">\n    <thead><tr><th>Component</th><th class="num">Value</th><th class="num">Weight</th><th class="num">Points</th><th>Detail</th></tr></thead>\n    <tbody>'
        for l_1_rc in environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'risk_components'):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_rc, 'name'))
            yield '</td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_rc, 'value'), 2))
            yield '</td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_rc, 'weight')))
            yield '</td><td class="num">'
            yield escape(t_11(environment.getattr(l_1_rc, 'points')))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_rc, 'detail'))
            yield '</td></tr>'
        l_1_rc = missing
        yield '</tbody>\n  </table>\n'
    if environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'one_off_costs'):
        pass
        yield '  <h3>One-off costs</h3>\n  <table class="grid">\n    <thead><tr><th>Work</th><th class="num">Person-days likely</th><th>Evidence (a call in scope)</th></tr></thead>\n    <tbody>'
        for l_1_c in environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'one_off_costs'):
            _loop_vars = {}
            pass
            yield '<tr><td>'
            yield escape(environment.getattr(l_1_c, 'name'))
            yield '</td><td class="num">'
            yield escape(t_1(environment.getattr(l_1_c, 'effort_person_days')))
            yield '</td><td><code>'
            yield escape(environment.getattr(l_1_c, 'evidence'))
            yield '</code></td></tr>'
        l_1_c = missing
        yield '</tbody>\n  </table>\n'
    yield '  <h3>Return on investment</h3>\n  <p>'
    if environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'monthly_spend'):
        pass
        yield 'With a monthly compute spend of '
        yield escape(t_9(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'monthly_spend'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
        yield ' and an expected saving of '
        yield escape(t_4(t_13((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'low') * 100))))
        yield '–'
        yield escape(t_4(t_13((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'high') * 100))))
        yield '% (an assumption), the likely cost pays back in '
        yield escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'low')))
        yield ' (high saving) to '
        yield escape(t_10(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'payback_months'), 'high')))
        yield " (low saving); the decision's horizon is "
        yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'horizon_months')))
        yield ' months.'
    else:
        pass
        yield 'No monthly compute spend configured (<code>--monthly-spend</code>), so no payback is computed; at a '
        yield escape(t_4(t_13(((environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'low') + environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'saving_fraction'), 'high')) * 50))))
        yield '% saving, a monthly spend of '
        yield escape(t_9(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'breakeven_monthly_spend'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
        yield ' would pay the likely cost back within '
        yield escape(t_11(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'horizon_months')))
        yield ' months.'
    yield ' Cost: '
    yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'cost'), 'p10'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield ' (P10), '
    yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'cost'), 'p50'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield ' (P50), '
    yield escape(t_9(environment.getattr(environment.getattr(environment.getattr((undefined(name='est') if l_0_est is missing else l_0_est), 'roi'), 'cost'), 'p90'), (undefined(name='cur') if l_0_cur is missing else l_0_cur)))
    yield ' (P90).</p>\n</section>\n\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'stubs'):
        pass
        yield '<section id="stubs">\n  <h2>Generated Flax NNX stubs</h2>\n'
        l_0_cols = t_7(context.eval_ctx, t_17(environment, t_15(environment, t_8(context, environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'stubs'), 'list'), start=[])))
        context.vars['cols'] = l_0_cols
        context.exported_vars.add('cols')
        yield '  <table class="grid" data-testid="stubs">\n    <thead><tr>'
        for l_1_c in (undefined(name='cols') if l_0_cols is missing else l_0_cols):
            _loop_vars = {}
            pass
            yield '<th>'
            yield escape(l_1_c)
            yield '</th>'
        l_1_c = missing
        yield '</tr></thead>\n    <tbody>'
        for l_1_st in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'stubs'):
            _loop_vars = {}
            pass
            yield '<tr>'
            for l_2_c in (undefined(name='cols') if l_0_cols is missing else l_0_cols):
                l_2_v = missing
                _loop_vars = {}
                pass
                l_2_v = context.call(environment.getattr(l_1_st, 'get'), l_2_c, '', _loop_vars=_loop_vars)
                _loop_vars['v'] = l_2_v
                yield '<td>'
                if (t_20((undefined(name='v') if l_2_v is missing else l_2_v)) or (t_19((undefined(name='v') if l_2_v is missing else l_2_v)) and (not t_22((undefined(name='v') if l_2_v is missing else l_2_v))))):
                    pass
                    yield '<code>'
                    yield escape(t_16(context.eval_ctx, (undefined(name='v') if l_2_v is missing else l_2_v)))
                    yield '</code>'
                else:
                    pass
                    yield escape((undefined(name='v') if l_2_v is missing else l_2_v))
                yield '</td>'
            l_2_c = l_2_v = missing
            yield '</tr>'
        l_1_st = missing
        yield '</tbody>\n  </table>\n</section>\n'
    if t_18(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'probe')):
        pass
        template = environment.get_template('_probe.html.j2', 'report.html.j2')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'cols': l_0_cols, 'cur': l_0_cur, 'eco_items': l_0_eco_items, 'est': l_0_est, 'gaps': l_0_gaps, 'ops': l_0_ops, 'pilot': l_0_pilot, 's': l_0_s, 'unplanned': l_0_unplanned, 'verdict': l_0_verdict, 'w1': l_0_w1}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
    yield '</main>\n<footer class="muted small">Generated by '
    yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tool'), 'name'))
    yield ' '
    yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tool'), 'version'))
    yield ' · report schema '
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'schema_version'))
    yield ' · static analysis only: estimates, not measurements.</footer>\n<script type="application/json" id="ml-data">'
    yield escape((undefined(name='data_json') if l_0_data_json is missing else l_0_data_json))
    yield '</script>\n<script>'
    yield escape((undefined(name='graph_js') if l_0_graph_js is missing else l_0_graph_js))
    yield '</script>\n<script>'
    yield escape((undefined(name='app_js') if l_0_app_js is missing else l_0_app_js))
    yield '</script>\n</body>\n</html>'

blocks = {}
debug_info = '4=158&5=161&6=164&12=168&14=170&15=172&19=174&21=176&26=187&27=189&28=209&29=213&30=215&32=219&33=221&39=223&40=225&41=229&45=238&46=240&50=246&54=250&55=252&57=255&58=258&60=265&61=279&63=284&66=291&71=308&74=316&76=319&77=323&78=325&79=327&89=349&90=351&92=355&93=361&95=377&96=379&98=384&103=404&106=408&116=425&117=427&118=429&119=431&126=433&128=436&129=440&131=448&132=467&140=478&141=481&146=487&147=491&148=506&152=525&155=528&157=544&163=553&164=556&166=560&169=563&171=599&172=602&178=611&179=635&180=656&187=660&188=672&191=675&200=696&226=706&258=716&263=732&269=735&277=746&278=748&279=752&280=760&281=764&283=773&284=776&287=778&290=794&294=797&298=810&301=841&304=844&306=848&307=856&311=880&313=889&314=895&315=897&316=899'

# Generated by `python -m migrate_lens.report.precompiled` from templates/report.html.j2; do not edit.
KEY = '47c2cf299322e6b94256420a16a66a7093c8d1e6dc22b2071e8bce00041ebad0'
