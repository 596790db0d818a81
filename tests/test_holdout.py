"""The held-out set (tests/fixtures/holdout): real vLLM logs from public reports that nobody
writing signatures or mechanisms has read (see its README). Three things are checked, none of
which needs anyone to read a case:

- integrity: every label has the corpus keys, and its line holds its message;
- disjointness: no holdout source is cited anywhere else in the repository or the shared corpus;
- a floor under the aggregate score, so a regression on unseen logs fails CI.

There are deliberately no per-case expectations: a per-case xfail would name a case and invite
someone to read it. Failure messages here give counts, never case contents.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus_judge import Case, expected_verdict, judge, load_cases, norm
from labelled_reports import report_of

ROOT = Path(__file__).resolve().parent.parent
HOLDOUT_DIR = ROOT / "tests" / "fixtures" / "holdout"
HOLDOUT = load_cases(HOLDOUT_DIR)

# The shared corpus sits beside the repository on the team's machine and is absent in CI.
SHARED_CORPUS = next((parent / "shared" / "corpus" for parent in ROOT.parents
                      if (parent / "shared" / "corpus").is_dir()), None)

# Floors under the aggregate score (counts of cases right, scored as shared/tools/score.py does).
# Set from a measurement minus a margin of two cases; raise them as logsleuth improves, never
# lower them to let a change through.
# Measured on 106 cases, both collectors (2026-12-02): verdict 98/106, root 67/83, fix 13/36,
# case 70/106. Re-measured on 162 cases (2026-12-03, after holdout-d): verdict 148/162,
# root 104/131, fix 23/55, case 104/162. Re-measured on 198 cases (2026-12-03, after holdout-b's second round):
# verdict 178/198, root 122/151, fix 26/60, case 132/198. Re-measured on 219 cases (2026-12-03, after
# holdout-c's second round): verdict 202/219, root 136/166, fix 34/74, case 148/219. Re-measured
# at the end of that session (library families, detect's launcher shapes, sigs-a's families):
# verdict 203/219, root 138/166, fix 39/74, case 154/219. Re-measured on 255 cases (2026-12-03, after
# holdout-e's round, two cases moved to tuning): verdict 235/255, root 163/197, fix 59/102, case 184/255.
# Re-measured on 253 cases (2026-12-03, evening, two more moved out): verdict 235/253, root 162/197,
# fix 59/102, case 183/253. Re-measured on 291 cases (2026-12-03, session 9: four seen cases moved
# out, holdout-a's 42 f-* cases in, the session's merges): verdict 276/291, root 191/221, fix 69/114,
# case 216/291. Re-measured on 309 cases (2026-12-03, session 10, after holdout-a's 18 g-* cases): verdict
# 293/309, root 202/233, fix 70/117, case 230/309; the floors still hold, so they are unchanged. Re-measured at the end of session 10 (all
# branches merged): verdict 294/309, root 202/233, fix 71/117, case 230/309; floors raised to that less 2.
# Session 11: holdout-d's 30 cases in (338), then a random development split of 50 moved to tuning
# (288). Measured at the end of session 11 on 288: verdict 277, root 199/221, fix 67/114, case 217;
# floors are that less 2 (lower than before only because the set is smaller). Then the end check
# printed two cases, which moved to tuning (286): verdict 275, root 198/219, fix 67/113, case 217;
# the verdict and root floors follow, less 2. Session 12: a second random development split of 40
# moved to tuning (246): verdict 237, root 171/184, fix 54/94, case 189 with session 11's code; floors
# are that less 2 (lower only because the set is smaller). Then two collectors added 34 and six
# cases moved out (274); measured at the end of session 12: verdict 264, root 190/203, fix 67/109,
# case 214 (session 11's code on the same 274: 264, 190, 61, 208); floors are that less 2. Then the
# end check printed two cases, which moved to tuning (272): verdict 263, root 190/201, fix 67/109,
# case 214; the verdict floor follows, less 2. Session 13: a third random development split of 40
# moved to tuning (232): verdict 224, root 164/174, fix 55/94, case 179 with session 12's code;
# floors are that less 2 (lower only because the set is smaller). Then holdout-d added 27 and
# holdout-e 24 (283): session 12's code scored verdict 275, root 199/213, fix 60/105, case 222;
# the merged session-13 code verdict 275, root 201/213, fix 62/105, case 226; floors are that less 2.
# Then the end check printed two root misses, moved to tuning (281): verdict 273, root 201/211, fix
# 62/105, case 226; the verdict floor follows, less 2. Session 14: a fourth random development split
# of 40 moved to tuning (241): verdict 235, root 175/184, fix 58/95, case 195 with session 13's code;
# floors are that less 2 (lower only because the set is smaller). Then holdout-d added 40 l-* cases
# (281): session 13's code and the merged session-14 code both scored verdict 269, root 197/213, fix
# 60/103, case 220; floors are that less 2. Then the end check printed two fix misses, moved to tuning
# (279): verdict 267, root 195/211, fix 60/101, case 220; the verdict and root floors follow, less 2.
# Session 15: a fifth random development split of 40 moved to tuning (239): verdict 228, root
# 167/181, fix 51/87, case 188 with session 14's code; floors are that less 2 (lower only because
# the set is smaller). Then holdout-e added 40 m-* cases (279): session 14's code scored verdict 260,
# root 191/211, fix 59/102, case 217 (the 40 new ones alone: verdict 32, root 24/30, fix 8/15, case 29);
# floors are that less 2. Then a helper's grep printed one case's name; it moved to tuning (278):
# verdict 259, root 190/210, fix 59/102, case 216 with session 14's code. The merged session-15
# code scored verdict 263, root 194/210, fix 59/102, case 218; floors are that less 2. Then the end
# check printed two cases, which moved to tuning (276): verdict 262, root 193/209, fix 59/101, case
# 218; the verdict and root floors follow, less 2. Session 16 drew a sixth random development split
# (40 of 276, moved to tuning unseen): the 236 that stay scored verdict 224, root 165/179, fix 53/89,
# case 186 with session 15's code; floors are that less 2. Then holdout-d added 59 (295) and a seventh
# random split took 30 (265): the merged session-16 code at that point scored verdict 249, root
# 183/204, fix 65/104, case 208; floors are that less 2. Session 17 drew an eighth random
# development split (30 of 265, moved to tuning unseen): the 235 that stay scored verdict 220, root
# 161/180, fix 60/95, case 185 with session 16's merged code; floors are that less 2 (lower only
# because the set is smaller). Then holdout-e added 10 p-* cases (245): the session's merged
# code scored verdict 229, root 167/186, fix 61/97, case 193, exactly what the session-16 code
# scored on the same 245 (the 10 new ones alone: verdict 9, root 6/6, fix 1/2, case 8); floors are
# that less 2. Then the end check printed two cases, which moved to tuning (243): verdict 228,
# root 167/185, fix 61/96, case 193; the verdict floor follows, less 2. Session 18's split (ninth)
# moved 30 to tuning: the 213 that stay score verdict 199, root 146/161, fix 52/82, case 170 with
# the session-17 code; floors are that less 2. Then holdout-d added 23 q-* cases (236), scored
# cold with the same code: verdict 221, root 159/177, fix 62/96, case 187 (the 23 alone: verdict 22,
# root 13/16, fix 10/14, case 17); floors are that less 2. The session-18 code scored the same on
# the 236; then the end check printed two cases (a healthy benchmark run whose resource tracker
# raises a KeyError at exit, answered failing; a docker build's wheel-size check refusing, answered
# no_failure), which moved to tuning (234): verdict 221, root 159/176, fix 62/95, case 187.
# Session 19's split (tenth) moved 30 to tuning: the 204 that stay score verdict 193, root 138/153,
# fix 57/87, case 161 with the session-18 code; floors are that less 2. Then holdout-e added 16 r-*
# cases (220), scored cold with the same code: verdict 208, root 147/163, fix 58/91, case 173 (the 16
# alone: verdict 15, root 9/10, fix 1/4, case 12); floors are that less 2. Then holdout-d added 18
# s-* cases (238), scored cold with the same code: verdict 222, root 154/175, fix 60/94, case 183
# (the 18 alone: verdict 14, root 7/12, fix 2/3, case 10); floors are that less 2. The session-19
# code on the same 238: verdict 223, root 154/175, fix 60/94, case 184; floors are that less 2.
# Then the end check printed one case (a healthy Gaudi 2 start answered root_cause_missing), which
# moved to tuning (237): verdict 223, root 154/175, fix 60/94, case 184; floors unchanged.
# Session 20's split (eleventh) moved 30 to tuning: the 207 that stay score verdict 199, root
# 138/156, fix 55/81, case 164 with the session-19 code; floors are that less 2. Then holdout-d
# added 20 t-* and holdout-e 20 u-* cases, five of which moved to tuning (the lead saw their names):
# the 242 score verdict 226, root 158/184, fix 64/103, case 184 with the same code; floors that less 2.
# Then two cases the lead read to find a regression moved to tuning (240): verdict 224, root 156/182,
# fix 63/102, case 182 with the session-19 code; floors that less 2. Then one case whose thread a
# sweep took as a tuning case moved to tuning (239): verdict 223, root 155/181, fix 63/101, case 182
# with the session-19 code; verdict 224, root 157/181, fix 65/101, case 185 with the session-20
# code; floors are the session-20 figures less 2. Then the end check printed one case (a healthy run
# answered failure), which moved to tuning (238): verdict 224, root 157/181, fix 65/101, case 185;
# floors unchanged. Session 21's split (twelfth) moved 30 to tuning: the 208 that stay score verdict
# 196, root 136/159, fix 60/89, case 163 with the session-20 code. One case whose thread a moved case
# shares moved with it (207): verdict 195, root 135/158, fix 59/88, case 162; floors that less 2.
# Then holdout-d added 20 v-* cases (227), scored cold with the session-20 code: verdict 210, root
# 145/169, fix 64/95, case 177 (the 20 alone: verdict 15, root 10/11, fix 5/7, case 15); floors are
# that less 2. Then holdout-e added 24 w-* cases (251), scored cold with the same code: verdict
# 229, root 158/189, fix 65/97, case 192 (the 24 alone: verdict 19, root 13/20, fix 1/2, case 15);
# floors are that less 2. The session-21 code on the same 251: verdict 230, root 159/189, fix 66/97,
# case 195; floors are that less 2. Then the end check printed two cases (fix misses), which moved
# to tuning (249): verdict 228, root 157/187, fix 66/95, case 195; floors that less 2.
# Session 22's thirteenth random split moved 30 to tuning (219 left): verdict 201, root 135/163,
# fix 59/86, case 169 with the session-21 code; floors that less 2. Then four collectors' rounds
# (holdout-e's 20 y-*, holdout-d's 20 x-* and 19 z-*, holdout-e's 14 aa-*), less seven whose names
# a grep printed: 285 cases; with the merged session-22 code verdict 267, root 194/224, fix 76/111,
# case 225; then holdout-d's 9 bb-* cases (294): with the final session-22 code verdict 272, root
# 196/226, fix 76/111, case 230; floors that less 2. The end-of-session-22 check printed two
# cases, and the lead three more names of their round; all five moved to tuning (289): verdict 270,
# root 194/224, fix 76/111, case 228; floors that less 2. Session 23's fourteenth random split
# moved 30 to tuning (259 left): verdict 240, root 173/202, fix 70/103, case 201 with the
# session-22 code; floors that less 2. Then holdout-d's 21 cc-* and holdout-e's 20 dd-* cases, less
# five dd-* cases whose names the lead saw at a merge (295): verdict 274, root 198/232, fix 77/131,
# case 215 with the session-22 code and the same with the final session-23 code; floors that less 2.
# The end-of-session-23 check printed two healthy cases (verdict misses), moved to tuning (293):
# verdict 274, root 198/232, fix 77/131, case 215; floors unchanged. Session 24's fifteenth random
# split moved 30 to tuning (263 left): verdict 248, root 180/208, fix 66/118, case 193 with the
# session-23 code; floors that less 2. Then holdout-d's 25 ee-* and holdout-e's 15 ff-* cases (303),
# scored cold with the session-23 code: verdict 286, root 204/234, fix 78/146, case 217 (ee-* alone:
# verdict 24/25, root 18/18, fix 7/19, case 13; ff-* alone: verdict 14/15, root 6/8, fix 5/9, case
# 11); the final session-24 code on the same 303: verdict 286, root 204/234, fix 79/146, case 218;
# floors that less 2. Then the end-of-session-24 check printed three cases (two answered right, one
# healthy log answered failing), moved to tuning (300): verdict 284, root 202/232, fix 78/145, case
# 216 with the final session-24 code; floors that less 2. Session 25's sixteenth random split
# moved 30 to tuning (270 left): verdict 256, root 182/211, fix 67/130, case 191 with the
# session-24 code; floors that less 2. Then holdout-d's 25 gg-* and holdout-e's 18 hh-* cases
# (313), scored cold with the session-24 code: verdict 297, root 212/243, fix 78/161, case 213
# (gg-* alone: verdict 25/25, root 17/18, fix 5/18, case 12; hh-* alone: verdict 16/18, root
# 13/14, fix 6/13, case 10); the final session-25 code on the same 313: verdict 298, root
# 212/243, fix 82/161, case 217; floors that less 2. Then the end-of-session-25 check printed two
# cases (both answered failure with the root right and the fix missed), moved to tuning (311):
# verdict 296, root 210/241, fix 82/159, case 217 with the final session-25 code; floors that less 2.
# Session 26's seventeenth random split moved 30 to tuning (281 left): verdict 267, root 192/220,
# fix 75/146, case 194 with the session-25 code; floors that less 2. Then holdout-d's 20 ii-* and
# holdout-e's 20 jj-* cases (321), scored cold with the session-25 code: verdict 306, root 223/252,
# fix 82/177, case 209 (ii-* alone: verdict 19/20, root 19/20, fix 4/20, case 3; jj-* alone:
# verdict 20/20, root 12/12, fix 3/11, case 12); the final session-26 code on the same 321:
# verdict 306, root 224/252, fix 82/177, case 210; floors that less 2. Then the end-of-session-26
# check printed two cases (both answered failure; one with the root right and the fix missed, one
# with both missed), moved to tuning (319): verdict 304, root 223/250, fix 82/175, case 210 with
# the final session-26 code; floors that less 2. Session 27's eighteenth random split moved 30 to
# tuning (289 left): verdict 277, root 203/227, fix 73/160, case 188 with the session-26 code;
# floors that less 2. Then holdout-d's 20 kk-* cases (309), scored cold with the session-26 code
# (kk-* alone: verdict 19/20, root 12/13, fix 1/3, case 16): verdict 296, root 215/240, fix
# 74/163, case 204; floors that less 2. Then holdout-e's 20 ll-* cases (329), scored cold with the
# session-26 code (ll-* alone: verdict 17/20, root 9/10, fix 2/3, case 15): verdict 313, root
# 224/250, fix 76/166, case 219; the final session-27 code on the same 329: verdict 313, root
# 224/250, fix 77/166, case 220; floors that less 2. Then the end-of-session-27 check printed two
# cases (both answered failure; one with the root right and the fix missed, one with both missed),
# moved to tuning (327): verdict 311, root 223/248, fix 77/164, case 220 with the final session-27
# code; floors that less 2. Session 28's nineteenth random split moved 30 to tuning (297 left):
# verdict 283, root 205/227, fix 71/151, case 200 with the session-27 code; floors that less 2.
# Then holdout-d's 20 mm-* cases (mm-* alone, cold with the session-27 code: verdict 18/20, root
# 11/12, fix 3/3, case 17) and holdout-e's 20 nn-* cases (nn-* alone: verdict 18/20, root 10/11,
# fix 2/2, case 18) came in (337): verdict 319, root 226/250, fix 76/156, case 235; floors that less 2.
# Then holdout-d's 15 oo-* cases (oo-* alone, cold with the session-27 code: verdict 15/15, root
# 4/5, fix 0/1, case 14) came in (352): verdict 334, root 230/255, fix 76/157, case 249 with the
# session-27 code; the final session-28 code on the same 352: verdict 334, root 230/255, fix
# 77/157, case 250; floors that less 2. Then holdout-e's 13 pp-* cases (pp-* alone, cold with the
# session-28 code: verdict 12/13, root 1/1, fix 0/0, case 12) came in (365): verdict 346, root
# 231/256, fix 77/157, case 262 with the final session-28 code (the session-27 code: 346, 231/256,
# 76/157, 261); floors that less 2. Then the end-of-session-28 check printed two healthy cases, both
# answered `failure`, moved to tuning (363): verdict 346, root 231/256, fix 77/157, case 262 with the
# final session-28 code; the floors still hold, unchanged. Session 29's twentieth random split
# moved 30 to tuning (333 left): verdict 317, root 210/234, fix 72/143, case 242 with the
# session-28 code; floors that less 2. Then two cases whose names the lead's grep printed moved
# to tuning, and holdout-d's 15 qq-* cases (alone, cold with the session's base code: verdict
# 14/15, root 12/12, fix 1/2, case 13) and holdout-e's 15 rr-* cases (verdict 13/15, root 9/9,
# fix 5/8, case 11) came in (361): verdict 342, root 229/253, fix 77/152, case 264 with the
# session-28 code; the final session-29 code on the same 361: verdict 342, root 229/253, fix
# 79/152, case 266; floors that less 2. Then the end-of-session-29 check printed one healthy
# case answered root_cause_missing, moved to tuning (360): the same figures; floors unchanged.
# Session 30's twenty-first random split moved 30 to tuning (330 left): verdict 313, root
# 209/231, fix 71/139, case 244 with the session-29 code; floors that less 2.
# Then holdout-d's 15 ss-* cases (alone, cold with the session's base code: verdict 13/15, root
# 6/7, fix 1/4, case 10) came in (345): verdict 326, root 215/238, fix 72/143, case 254; floors
# unchanged. Then holdout-e's 15 tt-* cases (alone, cold with the session's base code: verdict
# 13/15, root 10/10, fix 3/3, case 13) came in (360): verdict 339, root 225/248, fix 75/146, case
# 267; the final session-30 code on the same 360: the same figures; floors that less 2.
# Then the end-of-session-30 check printed one healthy case answered root_cause_missing, moved to
# tuning (359): verdict 339, root 225/248, fix 75/146, case 267; floors unchanged.
# Session 31's twenty-second random split moved 30 to tuning (329 left): verdict 310, root
# 210/229, fix 70/133, case 246 with the session-30 code; floors that less 2.
# Then holdout-d's 12 uu-* cases (alone, cold with the session's base code: verdict 7/12, root
# 4/10, fix 0/3, case 5) came in (341): verdict 317, root 214/239, fix 70/136, case 251; floors
# unchanged. Session 32's twenty-third random split moved 30 to tuning (311 left): verdict 292,
# root 198/218, fix 66/122, case 234 with the session-31 code; floors that less 2.
# Then holdout-e's 15 vv-* cases (alone, cold with the session's base code: verdict 12/15, root
# 6/7, fix 0/6, case 7) came in (326): verdict 304, root 204/225, fix 66/128, case 241; floors
# unchanged. Then holdout-d's 15 ww-* cases (alone, cold with the session's base code: verdict
# 14/15, root 13/13, fix 4/14, case 5) came in (341): verdict 318, root 217/238, fix 70/142, case
# 246 with the session-31 code; the final session-32 code on the same 341: verdict 319, root
# 218/238, fix 71/142, case 247; floors that less 2. Session 33's twenty-fourth random split
# moved 30 to tuning (311 left): verdict 292, root 202/220, fix 67/129, case 228 with the
# session-32 code; floors that less 2. Then holdout-d's 15 xx-* cases (alone, cold with the same
# code: verdict 15/15, root 14/14, fix 9/14, case 10) came in (326): verdict 307, root 216/234,
# fix 76/143, case 238; floors that less 2. Then holdout-e's yy-* cases, less one deleted for
# sharing holdout-d's source (14 alone, cold with the same code: verdict 12/14, root 4/6, fix 0/3,
# case 10) came in (340): verdict 319, root 220/240, fix 76/146, case 248; floors that less 2.
# Then holdout-d's 10 zz-* cases (alone, cold with the session-32 code: verdict 10/10, root 2/3,
# fix 2/3, case 9) came in (350): verdict 329, root 222/243, fix 78/149, case 257; floors that
# less 2. Then holdout-e's 7 aaa-* cases (alone, cold with the session-32 code: verdict 6/7, root
# 4/5, fix 2/4, case 5) came in (357): verdict 335, root 226/248, fix 80/153, case 262; floors
# that less 2.
# Then session 34's split moved 30 out (327 left): verdict 307, root 207/226, fix 74/138, case 242;
# floors that less 2. Then holdout-d's 12 bbb-* cases (alone, cold with the session-33 code: verdict
# 10/12, root 6/9, fix 4/6, case 6) came in (339): verdict 317, root 213/235, fix 78/144, case 248;
# floors that less 2. Then holdout-e's 12 ccc-* cases (alone, cold with the session-33 code: verdict
# 12/12, root 9/9, fix 2/7, case 7) came in, less five whose names the lead saw at the merge (346):
# verdict 324, root 220/242, fix 80/150, case 251; floors that less 2. Then holdout-d's 12 ddd-*
# cases (alone, cold with the session-33 code: verdict 12/12, root 12/12, fix 8/12, case 8) came in
# (358): verdict 336, root 232/254, fix 88/162, case 259; floors that less 2. Then holdout-e's 7
# eee-* cases (alone, cold with the session-33 code: verdict 7/7, root 5/5, fix 0/3, case 4) came in
# (365): verdict 343, root 237/259, fix 88/165, case 263; floors that less 2. With the final
# session-34 code on the same 365: verdict 344, root 238/259, fix 90/165, case 266; floors that
# less 2. Session 35's random development split (twenty-sixth) moved 30 to tuning (cold: verdict
# 26/30, root 18/18, fix 12/16, case 23); on the 334 left: verdict 318, root 220/241, fix 78/149,
# case 243; floors that less 2. Then holdout-d's 15 fff-* cases (alone, cold with the session-34
# code: verdict 14/15, root 11/11, fix 1/6, case 10) came in (349): verdict 332, root 231/252,
# fix 79/155, case 253; floors that less 2. Less two cases a helper's grep printed (both answered
# right, moved to tuning): on 347, verdict 330, root 229/250, fix 78/154, case 251; floors that
# less 2. Then holdout-e's 5 ggg-* cases (alone, cold with the session-34 code: verdict 5/5, root
# 2/2, fix 1/2, case 4) came in (352): verdict 335, root 231/252, fix 79/156, case 255 (the same
# with the final session-35 code); floors that less 2. Less one case a helper's grep printed
# (answered right, moved to tuning): on 351, verdict 334, root 230/251, fix 79/156, case 254;
# floors that less 2. Session 36's random development split (twenty-seventh) moved 30 to tuning
# (cold with the session-35 code: verdict 30/30, root 18/18, fix 6/10, case 26); on the 321 left:
# verdict 304, root 212/233, fix 73/146, case 228; floors that less 2. Then holdout-d's 7 hhh-*
# cases (alone, cold with the session-35 code: verdict 5/7, root 3/5, fix 1/3, case 5, two the wrong
# way) came in, and 20 cases whose names holdout-d's greps printed moved to tuning (their figures:
# verdict 18/20, root 17/18, fix 7/13, case 13, one the wrong way): on 308, verdict 291, root
# 198/220, fix 67/136, case 220, wrong way 14; floors that less 2. Then holdout-e's 6 iii-* cases
# (alone, cold with the session-35 code: verdict 6/6, root 6/6, fix 3/3, case 6) came in (314):
# verdict 297, root 204/226, fix 70/139, case 226; floors that less 2. Less one case a helper's file
# search printed (its root was wrong; moved to tuning): on 313, verdict 296, root 204/225, fix
# 70/139, case 226; floors that less 2. Less one case whose source line the lead read, checking a
# helper's report that its source was cited (it was not: a prefix of its issue number; answered
# right, moved to tuning): on 312, verdict 295, root 203/224, fix 70/139, case 225; floors unchanged.
# Less two the end-of-session-36 check printed (verdict right, fix missed; moved to tuning): on 310,
# verdict 293, root 202/223, fix 70/137, case 225 with the session-36 code; floors that less 2.
FLOORS = {
    "verdict": 291,
    "root": 200,
    "fix": 68,
    "case": 223,
}
# A ceiling on the worst answers (issue 10 wants none): a healthy case called failing or a
# failing case called no_failure. Counted, never listed. Measured 6 on 106 cases; 14 on 162 cases
# once holdout-d added Ray, ROCm, CPU, CI and long committed logs; 11 on 162 after detect's and
# families' fixes (2026-12-03); 15 on 198 after holdout-b's second round (2026-12-03); 13 on 219 after
# holdout-c's second round (2026-12-03); 12 on 219 at that session's end; 15 on 255 once holdout-e
# added 38 cases, four of them answered the wrong way (2026-12-03); 13 on 253 once two seen
# healthy cases answered `failure` moved to tuning (2026-12-03, evening); 15 on 279 once holdout-a added 26
# cases (2026-12-03, session 7; leaving a case out for its answer would bias the measure); 10 on 291 at the
# end of session 9 (three of them among holdout-a's 16 newest); 10 on 309 after holdout-a's 18 g-* cases
# (none of them among the new ones, 2026-12-03, session 10); 9 on 309 at the end of session 10; plus a
# margin of one. (One healthy case answered the wrong way moved to tuning after that measure: 8 on 308.)
# 7 on 338 after holdout-d's 30 (session 11); 5 on the 288 left by the random development split, plus 2;
# 3 on the 246 left by session 12's split, plus 2; 4 on the 274 at that session's end, plus 1;
# 3 on the 232 left by session 13's split, plus 2; 3 on the 283 after two collectors' rounds, plus 2;
# 3 on the 241 left by session 14's split, plus 2; 8 on 281 once holdout-d added 40 l-* cases, five
# of them answered the wrong way (leaving them out for their answer would bias the measure), plus 1;
# 8 on the 239 left by session 15's split (none of the 40 moved), plus 1; 15 on 279 once holdout-e
# added 40 m-* cases, seven of them answered the wrong way (six failing logs called no_failure), plus 1;
# 11 on 278 with the merged session-15 code, plus 1 (10 on the 276 after the end check's move);
# 8 on the 236 left by session 16's split (two of the 40 moved), plus 2; 12 on 276 once holdout-d
# added 40 n-* cases, four of them answered the wrong way (leaving them out would bias the measure), plus 1;
# 15 on 295 once holdout-d added 19 o-* cases, three of them answered the wrong way, plus 1;
# 13 on the 265 left by session 16's second split (two of the 30 moved), plus 1;
# 12 on the 235 left by session 17's split (one of the 30 moved), plus 1; 13 on 245 once holdout-e
# added 10 p-* cases, one of them answered the wrong way, plus 1 (12 on the 243 after the
# end-of-session-17 check's move); 11 on the 213 left by session 18's split (one of the 30 moved), plus 1; 12 on 236 once holdout-d
# added 23 q-* cases, one of them answered the wrong way (leaving it out would bias the measure), plus 1 (10 on the 234 after the
# end-of-session-18 check's move); 8 on the 204 left by session 19's split (two of the 30 moved), plus 1; still 8 on 220 once holdout-e added 16 r-* cases (none of them
# answered the wrong way), plus 1; 10 on 238 once holdout-d added 18 s-* cases, two of them (healthy
# logs called failing) answered the wrong way (leaving them out would bias the measure), plus 1;
# 7 on the same 238 with the session-19 code, plus 1 (6 on the 237 after the end-of-session-19
# check's move); 3 on the 207 left by session 20's split (three of the 30 moved), plus 1; 11 on 242
# once holdout-d's 20 t-* and holdout-e's 20 u-* cases came in (eight of them answered the wrong way,
# six of the u-* failing logs called no_failure; leaving them out would bias the measure), plus 1;
# 10 on the 239 with the session-20 code, plus 1 (9 on the 238 after the end-of-session-20
# check's move); 8 on the 208 left by session 21's split (one of the 30 moved), plus 1; 12 on
# 227 once holdout-d added 20 v-* cases, four of them answered the wrong way (leaving them out would
# bias the measure), plus 1; 14 on 251 once holdout-e added 24 w-* cases, two of them (healthy
# logs called failing) answered the wrong way, plus 1; 13 on the same 251 with the session-21
# code, plus 1 (13 on the 249 after the end-of-session-21 check's move); 10 on the 219 left by
# session 22's split (none shared a moved case's thread), plus 1; 11 on 285 after four
# collectors' rounds (one of the x-* failing logs called no_failure), plus 1; 14 on 294 once
# holdout-d added 9 bb-* cases, three of their six healthy logs called failing (leaving them out
# would bias the measure), plus 1; 11 on the 289 after the end-of-session-22 check's move, plus 1;
# 11 on the 259 left by session 23's split (none of the 30 moved), plus 1; 13 on 277 once
# holdout-e added 18 dd-* cases, plus 1; 13 on 295 once holdout-d's 21 cc-* and holdout-e's 20
# dd-* cases came in, less five healthy dd-* cases whose names the lead saw at a merge, plus 1;
# 11 on the 293 after the end-of-session-23 check's move (two healthy cases answered the wrong
# way), plus 1; 9 on the 263 left by session 24's split (two of the 30 moved), plus 1; still 9
# on 303 once holdout-d's 25 ee-* and holdout-e's 15 ff-* cases came in (none of them answered the
# wrong way, cold or with the final session-24 code), plus 1; 8 on the 300 after the
# end-of-session-24 check's move, plus 1; 8 on the 270 left by session 25's split (none of the
# 30 moved), plus 1; 9 on 313 once holdout-d's 25 gg-* and holdout-e's 18 hh-* cases came in (one
# hh-* case answered the wrong way, cold and with the final session-25 code), plus 1; still 9 on
# the 311 after the end-of-session-25 check's move, plus 1; 8 on the 281 left by session 26's
# split (one of the 30 moved), plus 1; still 8 on 321 once holdout-d's 20 ii-* and holdout-e's 20
# jj-* cases came in (none of them answered the wrong way, cold or with the final session-26
# code), plus 1; still 8 on the 319 after the end-of-session-26 check's move, plus 1; 6 on the
# 289 left by session 27's split (two of the 30 moved), plus 1; 7 on 309 once holdout-d added 20
# kk-* cases, one of them answered the wrong way (leaving it out would bias the measure), plus 1;
# 9 on 329 once holdout-e added 20 ll-* cases, two of them answered the wrong way, plus 1; still 9
# on the 327 after the end-of-session-27 check's move, plus 1; 8 on the 297 left by session 28's
# split (one of the 30 moved), plus 1; 12 on 337 once holdout-d's 20 mm-* and holdout-e's 20 nn-*
# cases came in, two of each answered the wrong way cold (leaving them out would bias the measure),
# plus 1; still 12 on 352 once holdout-d's 15 oo-* cases came in (none answered the wrong way), plus 1;
# 13 on 365 once holdout-e's 13 pp-* cases came in, one of them answered the wrong way, plus 1; 11 on
# the 363 after the end-of-session-28 check moved two of them out, plus 1; 10 on the 333 left by
# session 29's split (one of the 30 moved), plus 1; 11 on 361 once holdout-e's 15 rr-* cases came
# in, one of them answered the wrong way (leaving it out would bias the measure), plus 1; 10 on
# the 360 after the end-of-session-29 check moved that one out, plus 2 (kept); 10 on the 330 left
# by session 30's split (none of the 30 moved), plus 1; 12 on 345 once holdout-d's 15 ss-* cases came
# in, two of them answered the wrong way cold (leaving them out would bias the measure), plus 1;
# 14 on 360 once holdout-e's 15 tt-* cases came in, two of them answered the wrong way cold, plus 1;
# 13 on the 359 after the end-of-session-30 check moved one of them out, plus 2 (kept); 12 on the
# 329 left by session 31's split (one of the 30 moved), plus 1; 16 on 341 once holdout-d added 12
# uu-* cases (failing logs whose last lines hold no Python traceback), four of them answered the
# wrong way cold (leaving them out would bias the measure), plus 1; 14 on the 311 left by session
# 32's split (two of the 30 moved), plus 1; 17 on 326 once holdout-e added 15 vv-* cases, three
# of them answered the wrong way cold (leaving them out would bias the measure), plus 1; 18 on 341
# once holdout-d added 15 ww-* cases, one of them answered the wrong way cold; 17 on the same 341
# with the final session-32 code, plus 1; 15 on the 311 left by session 33's split (two of the
# 30 moved), plus 1; still 15 on 326 once holdout-d added 15 xx-* cases (none answered the
# wrong way cold), plus 1; 16 on 340 once holdout-e added 14 yy-* cases, one of them answered the
# wrong way cold (leaving it out would bias the measure), plus 1; still 16 on 350 once holdout-d
# added 10 zz-* cases (none answered the wrong way cold), plus 1; 17 on 357 once holdout-e added
# 7 aaa-* cases, one of them answered the wrong way cold (leaving it out would bias the measure),
# plus 1; 15 on the 327 left by session 34's split (two of the 30 moved), plus 1; 16 on 339 once
# holdout-d added 12 bbb-* cases, one of them answered the wrong way cold (leaving it out would bias
# the measure), plus 1; still 16 on 346 once holdout-e's 12 ccc-* cases came in (none answered the
# wrong way cold) less five whose names the lead saw, plus 1; still 16 on 358 once holdout-d's 12
# ddd-* cases came in (none answered the wrong way cold), plus 1; still 16 on 365 once holdout-e's 7
# eee-* cases came in (none answered the wrong way cold), plus 1; 15 on the same 365 with the
# final session-34 code, plus 1; 12 on the 334 left by session 35's split (two of the 30 moved),
# plus 1; 13 on 349 once holdout-d added 15 fff-* cases, one of them answered the wrong way cold
# (leaving it out would bias the measure), plus 1; still 13 on 352 once holdout-e added 5 ggg-*
# cases (none answered the wrong way cold), plus 1; still 13 on the 321 left by session 36's split
# (none of the 30 moved answered the wrong way), plus 1; 14 on 308 once holdout-d added 7 hhh-*
# cases, two of them answered the wrong way cold (leaving them out would bias the measure), and
# 20 cases whose names its greps printed moved out (one of them answered the wrong way), plus 1;
# still 14 on 314 once holdout-e added 6 iii-* cases (none answered the wrong way cold), plus 1.
MAX_WRONG_WAY = 15
# How many cases the set must hold at least (session 11: 308 plus holdout-d's 30, less the 50 of the random
# development split moved to tuning and the two cases the end check printed, see the README;
# before it, 308 after holdout-a's fourth round, 291 plus 18, less one seen case moved to tuning;
# lower it only when a case is moved out as the README asks; session 12: less the second split's 40,
# plus holdout-d's 25 h-* cases, plus holdout-e's 9 i-* cases, less six whose themes a brief named, less two the end check printed;
# session 13: less the third split's 40, plus holdout-d's 27 j-* cases, plus holdout-e's 24 k-* cases, less two the end check printed;
# session 14: less the fourth split's 40, plus holdout-d's 40 l-* cases, less two the end check printed;
# session 15: less the fifth split's 40, plus holdout-e's 40 m-* cases, less one whose name a helper's
# grep printed, less two the end check printed; session 16: less the sixth split's 40,
# plus holdout-d's 40 n-* cases, plus holdout-d's 19 o-* cases, less the seventh split's 30;
# session 17: less the eighth split's 30, plus holdout-e's 10 p-* cases, less two the end check printed; session 18: less the ninth split's 30, plus holdout-d's 23 q-* cases, less two the end check printed; session 19: less the tenth split's 30, plus holdout-e's 16 r-* cases, plus holdout-d's 18 s-* cases, less one the end check printed; session 20: less the eleventh split's 30, plus holdout-d's 20 t-* cases, plus holdout-e's 20 u-* cases, less five whose names the lead saw at a merge, less two the lead read to find a regression, less one whose thread a sweep took, less one the end check printed; session 21: less the twelfth split's 30, less one sharing a moved case's thread, plus holdout-d's v-* cases, plus holdout-e's 24 w-* cases; session 21's end check moved two out; session 22: less the thirteenth split's 30, plus 20 y-*, 20 x-*, 19 z-* and 14 aa-* cases, less seven whose names a grep printed, plus 9 bb-* cases; less five the end-of-session-22 check or the lead printed; session 23: less the fourteenth split's 30, plus holdout-d's 21 cc-* cases, plus holdout-e's 20 dd-* cases, less five whose names the lead saw at a merge, less two the end-of-session-23 check printed; session 24: less the fifteenth split's 30, plus holdout-d's 25 ee-* cases; session 24: plus holdout-e's 15 ff-* cases, less three the end-of-session-24 check printed; session 25: less the sixteenth split's 30; session 25: plus holdout-d's 25 gg-* cases; session 25: plus holdout-e's 18 hh-* cases, less two the end-of-session-25 check printed; session 26: less the seventeenth split's 30; session 26: plus holdout-d's 20 ii-* cases, plus holdout-e's 20 jj-* cases, less two the end-of-session-26 check printed; session 27: less the eighteenth split's 30, plus holdout-d's 20 kk-* cases, plus holdout-e's 20 ll-* cases, less two the end-of-session-27 check printed; session 28: less the nineteenth split's 30; session 28: plus holdout-d's 20 mm-* cases, plus holdout-e's 20 nn-* cases; session 28: plus holdout-d's 15 oo-* cases; session 28: plus holdout-e's 13 pp-* cases, less two the end-of-session-28 check printed; session 29: less the twentieth split's 30; session 29: plus holdout-d's 15 qq-* cases; session 29: less two whose names the lead's grep printed, checking a helper's search results against the held-out sources; session 29: plus holdout-e's 15 rr-* cases, less one the end-of-session-29 check printed; session 30: less the twenty-first split's 30; session 30: plus holdout-d's 15 ss-* cases; session 30: plus holdout-e's 15 tt-* cases, less one the end-of-session-30 check printed; session 31: less the twenty-second split's 30; session 31: plus holdout-d's 12 uu-* cases; session 32: less the twenty-third split's 30; session 32: plus holdout-e's 15 vv-* cases; session 32: plus holdout-d's 15 ww-* cases; session 33: less the twenty-fourth split's 30, plus holdout-d's 15 xx-* cases, plus holdout-e's 15 yy-* cases less one sharing an xx-* case's source, plus holdout-d's 10 zz-* cases, plus holdout-e's 7 aaa-* cases; session 34: less the twenty-fifth split's 30, plus holdout-d's 12 bbb-* cases, plus holdout-e's 12 ccc-* cases less five whose names the lead saw at the merge, plus holdout-d's 12 ddd-* cases, plus holdout-e's 7 eee-* cases, less one the end-of-session-34 check printed; session 35: less the twenty-sixth split's 30, plus holdout-d's 15 fff-* cases, less two a helper's grep printed, plus holdout-e's 5 ggg-* cases, less one a helper's grep printed; session 36: less the twenty-seventh split's 30, plus holdout-d's 7 hhh-* cases, less 20 whose names holdout-d's greps printed, plus holdout-e's 6 iii-* cases, less one a helper's file search printed, less one whose source line the lead read, less two the end-of-session-36 check printed), and the groups it must have.
MIN_CASES = 310
GROUPS = {"startup", "runtime", "launchers", "healthy"}

# Keys of shared/corpus/README.md: every case has these ...
COMMON_KEYS = {"source", "vllm_version", "gpu", "category"}
# ... a failing case these as well ...
FAILURE_KEYS = {"root_cause_in_log", "root_cause", "symptoms", "fix", "fix_keywords"}
ROOT_CAUSE_KEYS = {"exception", "message_contains", "process", "line"}
# ... and its source is a public thread or file; a vLLM issue must have an odd number (the
# source partition: signature examples come from even-numbered vLLM issues only).
VLLM_ISSUE = re.compile(r"github\.com/vllm-project/vllm/issues/(\d+)")
SKIPPED_DIRS = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache",
                ".hypothesis", "build", "dist", "node_modules",
                ".cache"}  # benchmarks/.cache: generated logs of gigabytes, git-ignored


def source_url(case: Case) -> str:
    """The case's source without its fragment (a comment anchor names the same thread)."""
    return str(case.label["source"]).split()[0].split("#")[0].rstrip("/")


def citation_pattern(url: str) -> tuple[str, re.Pattern[str]]:
    """Every way the repository might cite the thread behind `url`: the URL itself (issue or
    pull, the two share one numbering) and the `owner/repo#N` short form; with the lowercase
    text that any such citation contains (to skip the files that hold none)."""
    thread = re.match(r"https?://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)$", url)
    if thread is None:
        literal = url.split("://", 1)[-1]
        return literal.lower(), re.compile(re.escape(literal) + r"(?![\w/.-])", re.IGNORECASE)
    repo, number = thread[1], thread[2]
    return repo.lower(), re.compile(
        rf"{re.escape(repo)}(?:/(?:issues|pull|discussions)/|#){number}(?!\d)", re.IGNORECASE)


def text_files(top: Path, skip: Path | None = None) -> Iterator[Path]:
    """Every readable file under `top`, outside tool folders and outside `skip`."""
    for path in sorted(top.rglob("*")):
        relative = path.relative_to(top).parts
        if set(relative) & SKIPPED_DIRS or any(part.endswith(".egg-info") for part in relative):
            continue
        if skip is not None and path.is_relative_to(skip):
            continue
        if path.is_file():
            yield path


def citations(top: Path, patterns: dict[str, tuple[str, re.Pattern[str]]],
              skip: Path | None = None) -> dict[str, list[str]]:
    """For each case id, the files under `top` that cite its source."""
    # A file is searched only with the patterns whose literal it holds: 300 searches per file
    # shrink to a few `in` tests (this was the slowest test of the suite).
    by_literal: dict[str, dict[str, re.Pattern[str]]] = {}
    for case_id, (literal, pattern) in patterns.items():
        by_literal.setdefault(literal, {})[case_id] = pattern
    found: dict[str, list[str]] = {}
    for path in text_files(top, skip):
        text = path.read_text(encoding="utf-8", errors="ignore")
        lowered = text.lower()
        for literal, group in by_literal.items():
            if literal not in lowered:
                continue
            for case_id, pattern in group.items():
                if pattern.search(text):
                    found.setdefault(case_id, []).append(str(path.relative_to(top)))
    return found


def test_holdout_is_there() -> None:
    assert len(HOLDOUT) >= MIN_CASES
    assert {case.group for case in HOLDOUT} >= GROUPS
    assert len(HOLDOUT) == len(list(HOLDOUT_DIR.rglob("log.txt")))


@pytest.mark.parametrize("case", HOLDOUT, ids=lambda case: case.id)
def test_label_has_the_corpus_keys(case: Case) -> None:
    label = case.label
    assert COMMON_KEYS <= set(label), f"missing {COMMON_KEYS - set(label)}"
    if label.get("healthy"):
        assert label["healthy"] is True
        return
    assert FAILURE_KEYS <= set(label), f"missing {FAILURE_KEYS - set(label)}"
    assert ROOT_CAUSE_KEYS <= set(label["root_cause"]), (
        f"missing {ROOT_CAUSE_KEYS - set(label['root_cause'])}")
    assert label["root_cause"]["exception"]
    # empty only for an exception printed without a message (a bare AssertionError)
    assert isinstance(label["root_cause"]["message_contains"], str)
    assert isinstance(label["fix_keywords"], list)
    assert isinstance(label["symptoms"], list)


@pytest.mark.parametrize("case", HOLDOUT, ids=lambda case: case.id)
def test_label_source_is_in_the_partition(case: Case) -> None:
    url = source_url(case)
    # A public https page: GitHub threads, commits and files, and (since session 34) logs posted
    # outside GitHub trackers (vendor forums, documentation pages with real output).
    assert url.startswith("https://"), url
    issue = VLLM_ISSUE.search(url)
    if issue is not None:
        assert int(issue[1]) % 2 == 1, f"{url}: even vLLM issues are for signature examples"


@pytest.mark.parametrize("case", [case for case in HOLDOUT
                                  if (case.label.get("root_cause") or {}).get("line") is not None],
                         ids=lambda case: case.id)
def test_labelled_line_holds_the_message(case: Case) -> None:
    root = case.label["root_cause"]
    # Split on \n only, as grep -n counts: a progress bar's bare \r is not a line break.
    lines = case.log.read_bytes().decode("utf-8", errors="replace").split("\n")
    number = root["line"]
    assert isinstance(number, int) and 1 <= number <= len(lines), f"line {number} of {len(lines)}"
    assert norm(root["message_contains"]) in norm(lines[number - 1]), (
        f"line {number} does not hold the labelled message")


@pytest.mark.parametrize("case", HOLDOUT, ids=lambda case: case.id)
def test_log_is_not_wrapped_in_a_markdown_fence(case: Case) -> None:
    lines = case.log.read_text(encoding="utf-8", errors="replace").strip("\n").split("\n")
    assert not lines[0].startswith("```") and not lines[-1].startswith("```")


def test_sources_are_distinct() -> None:
    urls = [source_url(case) for case in HOLDOUT]
    assert len(urls) == len(set(urls)), sorted({url for url in urls if urls.count(url) > 1})


@pytest.mark.long
def test_sources_are_cited_nowhere_else_in_the_repository() -> None:
    patterns = {case.id: citation_pattern(source_url(case)) for case in HOLDOUT}
    cited = citations(ROOT, patterns, skip=HOLDOUT_DIR)
    assert not cited, f"holdout sources cited elsewhere (move those cases out): {cited}"


@pytest.mark.skipif(SHARED_CORPUS is None,
                    reason="the shared corpus sits beside the repository only on the team's "
                           "machine; CI checks the repository's copy of it (tests/fixtures/corpus)")
def test_sources_are_not_in_the_shared_corpus() -> None:
    assert SHARED_CORPUS is not None
    patterns = {case.id: citation_pattern(source_url(case)) for case in HOLDOUT}
    cited = citations(SHARED_CORPUS, patterns)
    assert not cited, f"holdout sources in the shared corpus (move those cases out): {cited}"


def _report(case_id: str) -> dict[str, Any]:
    case = next(case for case in HOLDOUT if case.id == case_id)
    return report_of(case.log)  # explained once in the session (labelled_reports.py)


@pytest.mark.long
def test_aggregate_score_is_above_the_floors() -> None:
    right = dict.fromkeys(FLOORS, 0)
    applicable = dict.fromkeys(FLOORS, 0)
    for case in HOLDOUT:
        result = judge(case.label, _report(case.id))
        for check in ("verdict", "root", "fix"):
            outcome = getattr(result, check)
            if outcome is not None:
                applicable[check] += 1
                right[check] += bool(outcome)
        applicable["case"] += 1
        right["case"] += result.case
    summary = " · ".join(f"{check} {right[check]}/{applicable[check]}" for check in FLOORS)
    below = [check for check, floor in FLOORS.items() if right[check] < floor]
    assert not below, f"below the floor on {below}: {summary} (floors {FLOORS})"


def test_verdicts_the_wrong_way_round_stay_under_the_ceiling() -> None:
    wrong_way = sum((expected_verdict(case.label) == "no_failure")
                    != (_report(case.id).get("verdict") == "no_failure") for case in HOLDOUT)
    assert wrong_way <= MAX_WRONG_WAY, (
        f"{wrong_way} cases healthy called failing or failing called no_failure "
        f"(ceiling {MAX_WRONG_WAY})")
