"""Every session-state key the app uses, and the page files.

Each key has one owner: a constant of :class:`Keys`. Modules whose names start with ``_`` are helpers,
never pages: app.py lists the pages with ``st.navigation``.
"""

from __future__ import annotations

LEADERBOARD, CASES, RUN, RUNS, COMPARE, UPLOAD, RATE = (
    "pages/leaderboard.py",
    "pages/cases.py",
    "pages/run.py",
    "pages/runs.py",
    "pages/compare.py",
    "pages/upload.py",
    "pages/rate.py",
)
#: The Compare page's URL path: the address bar carries a comparison there only.
COMPARE_URL = "compare"
#: The Cases page's URL path: the address bar carries its contender, case and toggles there only.
CASES_URL = "cases"
#: URL paths of the pages that show no leaderboard: the sidebar leaves out the weight sliders there.
UNWEIGHTED_URLS = ("run", "runs", "upload", "rate")


class Keys:
    """Every session-state key, in one place."""

    RUN = "run"  # the run picker: a store run id or "upload:<digest>"
    PENDING_RUN = "pending_run"  # a run to select on the next script run (set by pages)
    UPLOADS = "uploads"  # refs of runs uploaded in this session
    UPLOAD_STORES = "upload_stores"  # this session's uploads on disk (pages/_uploads.py), removed with the session
    WEIGHTS_FOR = "weights_for"  # the run the weight sliders were last set for
    WEIGHT = "w_"  # + weight name: one slider each
    WEIGHT_POSITIONS = "weight_positions"  # the sliders' last positions, kept apart from the widgets
    FILTERS_FOR = "filters_for"  # the run the leaderboard filters belong to
    FILTERS = "filters"  # the leaderboard's filters: dataset / variant / contender / meta_<key> → values
    FILTER = "f_"  # + one of those names: its multiselect, drawn while the Filters are open
    FILTERS_OPEN = "filters_open"  # the leaderboard's Filters expander is open (its widgets are drawn)
    QUERY_READ = "query_read"  # the address bar was read into the session
    MISSING_RUN = "missing_run"  # (the run an address named that the store lacks, the run shown in its place)
    URL_WEIGHTS = "url_weights"  # weights from the address bar, for the sliders to take once
    REFRAMED = "reframed"  # a page ran without app.py and asked for a rerun through it (see _frame)
    CASE_CONTENDER = "case_contender"
    CASE_COMPARE = "case_compare"
    CASE_TABLE = "case_table"
    CASE_PAGE = "case_page"  # (what the Cases page listed, the page of it shown); + _previous / _next: its buttons
    CASE_PAGE_SIZE = "case_page_size"
    LEADERBOARD_TABLE = "leaderboard_table"
    RUNS_TABLE = "runs_table"
    UPLOAD_FILE = "upload_file"
    UPLOAD_MERGED = "upload_merged"  # ref of the run the Merge action made from this page's uploads
    DATASET_TAB = "dataset_tab"
    CHART_TAB = "chart_tab"
    CHART = "chart_"  # + a chart's title: its selection
    #: Set after a session's first script run: its next runs may start background work (pages/_prefetch.py).
    DRAWN_ONCE = "drawn_once"
    CHARTS_NOW = "charts_now"  # this session's charts are drawn with its tables (see _widgets.charts_now)
    TABLES_SHOWN = "tables_shown"  # the component that reports a table on screen
    JOB = "job"  # the run launched or resumed from this session
    CANCEL = "cancel_"  # + run id: the Cancel button of that run's progress panel
    SO_FAR = "so_far"  # the leaderboard so far of that run: (run id, when, took, results, view)
    CONFIRM_DELETE = "confirm_delete"
    CASE_OPEN = "case_open"  # (contender, dataset, case, sample) the Cases page shows until a row is clicked
    CASE_ONLY = "case_only_"  # + failures / errors / hallucinations: the Cases page's toggles
    CASE_SEARCH = "case_search"
    CASES_VIEW = "cases_view"  # the Cases page's view (a sharing.CasesState) for the address bar
    COMPARISON = "comparison"  # the Compare page's choice (a sharing.ComparisonState), kept apart from its widgets
    COMPARE_BASE = "compare_base"
    COMPARE_CANDIDATE = "compare_candidate"
    COMPARE_PAIRS = "compare_pairs"
    COMPARE_SHOWN = "compare_shown"  # the pair whose changes and flips are drawn
    FLIP_TABLE = "flip_table"
    TREND_FOR = "trend_for"  # the run picked in the Runs list when the trend's suite last followed it
    TREND_SUITE = "trend_suite"
    TREND_CONTENDER = "trend_contender"
    TREND_VALUE = "trend_value"
    PIN_CONTENDER = "pin_contender"
    RATER = "rater"  # the name a rater typed once (a signed-in rater is their address)
    RATE_MODE = "rate_mode"
    RATE_BASE = "rate_base"  # the base run whose replies face the current run's in base-and-candidate mode
    RATE_FIRST = "rate_first"  # what the Rate page's queue puts first: disagreements, flagged replies, or nothing
    RATE_SIZE = "rate_size"
    RATE_REVEAL = "rate_reveal"  # what the page says of the rating just stored, once (names only with reveal "each")
    RATE_COMMENT = "rate_comment_"  # + the item: its comment box
    RATE_SCORE = "rate_score_"  # + a judge dimension: its 1-5 choice
    REVIEW = "review"  # the Rate page shows the review queue of proposed cases instead of replies
    REVIEW_SAID = "review_said"  # ("ok" | "error", text): what the last decision on a proposal said, once
    REVIEW_SKIPPED = "review_skipped"  # ids of proposals skipped this session
    REVIEW_INPUT = "review_input_"  # + a proposal id: its input as the reviewer edits it
    REVIEW_EXPECTED = "review_expected_"  # + a proposal id: its expected answer as the reviewer edits it
    REVIEW_WHY = "review_why_"  # + a proposal id: why it is rejected
