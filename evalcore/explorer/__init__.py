"""What the explorer app computes without a browser: the case drill-down, shared addresses and run
history, who may change the store, and background runs launched from a page.

- :mod:`~evalcore.explorer.drilldown`: cases, their details, want vs got.
- :mod:`~evalcore.explorer.timeline`: an agent's trace as a timeline, expected actions matched, missing or extra.
- :mod:`~evalcore.explorer.transcript`: a conversation's transcript as chat messages, with each turn's scores.
- :mod:`~evalcore.explorer.case_images`: a case's images, from the run's suite folder when they are there.
- :mod:`~evalcore.explorer.sharing`: run lists, bundled runs, the address bar's state.
- :mod:`~evalcore.explorer.access`: the deployment's roles (sign-in, launch list, viewer mode): who may view,
  who may change the store.
- :mod:`~evalcore.explorer.rating`: the Rate page's blind queue, what the browser sees of an item, the rating.
- :mod:`~evalcore.explorer.blinding`: the deployment's secret behind each rater's queue, and when names show.
- :mod:`~evalcore.explorer.changes`: saving uploads, deleting runs and pinning baselines, under those roles.
- :mod:`~evalcore.explorer.jobs`: launching and resuming runs in a background thread.
- :mod:`~evalcore.explorer.suite_roots`: the folders the app may run suites from, and the suites under them.
- :mod:`~evalcore.explorer.report`: one self-contained HTML report of a run, with live weight sliders
  (``report.html``, ``report.css`` and ``report.js`` beside it), or Markdown.
- :mod:`~evalcore.explorer.reporters`: report formats by name, ``evalcore report --format NAME`` (entry-point
  group ``evalcore.reporters``).

The leaderboard's tables come from :mod:`evalcore.analysis.tables.view`. Nothing here imports streamlit
(``app.py`` and ``pages/`` do) or litellm. May import every sub-package but :mod:`evalcore.cli`.
"""
