package org.clustersim.study.scenario;

import java.util.List;

import org.clustersim.core.input.Section;
import org.clustersim.strategies.training.LayoutRules;

/** The two checks every section reader of a scenario makes. */
final class SectionChecks {
    private SectionChecks() {
    }

    /** Each broken layout rule as an error located at the field it concerns. */
    static void report(Section s, List<LayoutRules.Violation> broken) {
        for (LayoutRules.Violation v : broken) {
            s.error(v.field(), v.message());
        }
    }

    /** Whether {@code key} is given a value: an empty value ({@code key:} or null) counts as absent. */
    static boolean given(Section s, String key) {
        return s.node(key).isPresent();
    }
}
