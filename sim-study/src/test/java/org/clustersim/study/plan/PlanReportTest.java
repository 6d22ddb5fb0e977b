package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The plan report's wording of the layouts over HBM (issue 34, item 7: "peaks 97 to 97 GB"). */
class PlanReportTest {
    @Test
    void peaksThatPrintAlikeAreOneValueAndARangeOtherwise() {
        assertEquals("predicted peak 97 GB", PlanReport.peaks(97_200_000_000L, 97_400_000_000L));
        assertEquals("predicted peak 97 GB", PlanReport.peaks(97_000_000_000L, 97_000_000_000L));
        assertEquals("predicted peaks 90 to 121 GB", PlanReport.peaks(90_100_000_000L, 120_600_000_000L));
    }
}
