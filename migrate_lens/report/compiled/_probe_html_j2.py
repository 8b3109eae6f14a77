from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = '_probe.html.j2'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_view = resolve('view')
    l_0_pr = l_0_ps = l_0_missed = missing
    try:
        t_1 = environment.filters['int']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'int' found.")
    try:
        t_2 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_4 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_5 = environment.filters['plural']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'plural' found.")
    try:
        t_6 = environment.filters['round']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'round' found.")
    try:
        t_7 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_8 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    l_0_pr = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'probe')
    context.vars['pr'] = l_0_pr
    context.exported_vars.add('pr')
    l_0_ps = environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'summary')
    context.vars['ps'] = l_0_ps
    context.exported_vars.add('ps')
    yield '<section id="probe">\n  <h2>Runtime probe</h2>\n  <p>One run of '
    yield escape(t_5(t_3(environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'examples')), 'example'))
    yield ' ('
    yield escape(t_2(context.eval_ctx, environment.getattr(environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'source'), 'modes'), ', '))
    yield ', torch '
    yield escape(environment.getattr(environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'source'), 'torch_version'))
    yield ') was held against the static findings:\n    <strong>'
    yield escape(environment.getitem((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'confirmed'))
    yield '</strong> confirmed at runtime, <strong>'
    yield escape(environment.getitem((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'static-only'))
    yield '</strong> not seen at runtime on these inputs,\n    <strong>'
    yield escape(environment.getitem((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'runtime-only'))
    yield '</strong> runtime hazards the static scan missed.\n'
    if (not t_8(environment.getattr((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'static_recall'))):
        pass
        yield 'The scan flagged '
        yield escape(t_1(t_6((environment.getattr((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'static_recall') * 100))))
        yield '% of the '
        yield escape(t_5(environment.getattr((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'runtime_sites'), 'line'))
        yield ' where a hazard happened.'
    yield '</p>\n  <p class="muted">A finding not seen at runtime is not refuted: other inputs, modes or branches may reach it. Not compared: '
    yield escape(t_5(environment.getattr((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'not_observable'), 'finding'))
    yield ' in categories no runtime event shows, '
    yield escape(t_5(environment.getattr((undefined(name='ps') if l_0_ps is missing else l_0_ps), 'in_files_not_run'), 'finding'))
    yield ' in files the run did not reach.</p>\n'
    l_0_missed = t_4(context.eval_ctx, t_7(context, environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'entries'), 'status', 'equalto', 'runtime-only'))
    context.vars['missed'] = l_0_missed
    context.exported_vars.add('missed')
    yield '  <h3>What the static scan missed</h3>\n'
    if (undefined(name='missed') if l_0_missed is missing else l_0_missed):
        pass
        yield '  <table class="grid" data-testid="probe-missed">\n    <thead><tr><th>Where</th><th>Category</th><th>Runtime kind</th><th>Ops</th><th>Detail</th></tr></thead>\n    <tbody>'
        for l_1_e in (undefined(name='missed') if l_0_missed is missing else l_0_missed):
            _loop_vars = {}
            pass
            yield '<tr><td><code>'
            yield escape(environment.getattr(l_1_e, 'path'))
            yield ':'
            yield escape(environment.getattr(l_1_e, 'line'))
            yield '</code></td><td>'
            yield escape(environment.getattr(l_1_e, 'category'))
            yield '</td><td>'
            yield escape(t_2(context.eval_ctx, environment.getattr(l_1_e, 'kinds'), ', '))
            yield '</td><td><code>'
            yield escape(t_2(context.eval_ctx, environment.getattr(l_1_e, 'ops'), ', '))
            yield '</code></td><td>'
            yield escape((environment.getattr(l_1_e, 'detail') or environment.getattr(l_1_e, 'reason')))
            yield '</td></tr>'
        l_1_e = missing
        yield '</tbody>\n  </table>\n'
    else:
        pass
        yield '  <p>Nothing: every runtime hazard was at a line the scan flagged.</p>\n'
    yield '  <h3>Runs</h3>\n  <table class="grid" data-testid="probe-runs">\n    <thead><tr><th>Example</th><th>Mode</th><th>Status</th><th class="num">aten ops</th><th class="num">Graph breaks</th><th>torch.export</th><th>State written in forward</th></tr></thead>\n    <tbody>'
    for l_1_r in environment.getattr((undefined(name='pr') if l_0_pr is missing else l_0_pr), 'examples'):
        _loop_vars = {}
        pass
        yield '<tr><td><code>'
        yield escape(environment.getattr(l_1_r, 'name'))
        yield '</code> '
        yield escape(environment.getattr(l_1_r, 'module'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'mode'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'status'))
        if environment.getattr(l_1_r, 'error'):
            pass
            yield ': '
            yield escape(environment.getattr(l_1_r, 'error'))
        yield '</td><td class="num">'
        yield escape(environment.getattr(l_1_r, 'ops'))
        yield '</td><td class="num">'
        yield escape(('–' if t_8(environment.getattr(l_1_r, 'graph_breaks')) else environment.getattr(l_1_r, 'graph_breaks')))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'export'))
        yield '</td><td>'
        yield escape(t_2(context.eval_ctx, environment.getattr(l_1_r, 'state_written'), ', '))
        yield '</td></tr>'
    l_1_r = missing
    yield '</tbody>\n  </table>\n</section>'

blocks = {}
debug_info = '2=61&3=64&6=68&7=74&8=78&9=80&10=88&11=92&13=96&16=99&24=121'

# Generated by `python -m migrate_lens.report.precompiled` from templates/_probe.html.j2; do not edit.
KEY = '0d966009aced10fd69a383edd4a65440e6d90c9ae27baeb150ae402bb1eac4b4'
