"""Worked examples transcribed from the papers, shared by the tests that reproduce them."""

import pandas as pd

# 2016 paper, Table 3: example data matrix X (8 systems x 5 topics), transcribed from the paper.
TABLE3 = pd.DataFrame(
    [
        [0.0500, 0.1500, 0.3000, 0.4500, 0.5500],
        [0.4000, 0.3500, 0.3000, 0.2500, 0.2000],
        [0.3000, 0.3000, 0.3000, 0.3000, 0.3000],
        [0.2500, 0.2500, 0.2500, 0.2500, 0.2500],
        [0.4000, 0.1500, 0.4000, 0.1500, 0.4000],
        [0.2000, 0.4500, 0.2000, 0.4500, 0.2000],
        [0.2542, 0.2629, 0.2802, 0.2975, 0.3061],
        [0.2918, 0.2994, 0.3147, 0.3301, 0.3378],
    ],
    index=[f"s{i}" for i in range(1, 9)],
    columns=[f"t{j}" for j in range(1, 6)],
)
