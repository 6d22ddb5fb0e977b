package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;

/**
 * The {@code faults} list of a scenario: links, switches, NICs going down or degraded and GPUs
 * slowed, each for a time. Kept apart from {@link ScenarioReader}, which calls it.
 */
final class FaultListReader {
    private final List<SourceNode> items;
    private final Diagnostics d;

    /**
     * @param items the entries of the {@code faults} list
     * @param d     where errors are collected (an entry that is no mapping has no section)
     */
    FaultListReader(List<SourceNode> items, Diagnostics d) {
        this.items = items;
        this.d = d;
    }

    /**
     * The {@code faults} list: each entry names one target ({@code link}, {@code switch},
     * {@code nic} or {@code gpu}), when it starts ({@code at}) and how long it lasts
     * ({@code for}, absent: the rest of the run); links, switches and NICs go {@code down} or
     * {@code degraded} (a {@code fraction} of capacity, optional {@code extraLatencyUs}); a GPU
     * runs at {@code speed}.
     */
    List<Fault> read() {
        List<String> targets = List.copyOf(((Field.VariantListType) FAULTS.type()).variants().keySet());
        List<Fault> out = new java.util.ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            String path = "faults[" + i + "]";
            if (!(item instanceof SourceNode.MapNode m)) {
                d.error(item.location(), path, "found " + item.describe() + ", expected a mapping with one of link, "
                        + "switch, nic or gpu, and at, for, state");
                continue;
            }
            Section f = new Section(d, path, m, m.location());
            // an empty target counts as none, so a fault is never dropped silently
            List<String> given = targets.stream().filter(k -> f.node(k).isPresent()).toList();
            if (given.size() != 1) {
                f.error(given.isEmpty() ? "link" : given.get(1), given.isEmpty()
                        ? "missing target: expected one of link (such as node0.gpu0->node0.nic0, or a<->b for both "
                        + "directions), switch, nic or gpu (clustersim topology SCENARIO --links lists them)"
                        : "found " + String.join(" and ", given) + "; expected one target per fault");
            }
            String key = given.isEmpty() ? "link" : given.get(0);
            Fault.Target target = Fault.Target.valueOf(key.toUpperCase(java.util.Locale.ROOT));
            Optional<String> name = f.text(key);
            long at = AT.text(f).map(t -> Durations.parseNs(t, f, "at")).orElse(0L);
            Optional<String> forText = FOR.text(f);
            boolean rest = forText.map(t -> t.trim().equalsIgnoreCase("rest")).orElse(true);
            int before = d.errorCount();
            long duration = rest ? 0L : Durations.parseNs(forText.get(), f, "for");
            if (!rest && duration == 0 && d.errorCount() == before) {
                f.error("for", "a fault lasts longer than 0; leave for out (or write rest) for the rest of the run");
            }
            double speed = 1;
            double fraction = 1;
            long extra = 0;
            if (target == Fault.Target.GPU) {
                speed = SPEED.number(f).orElse((Double) SPEED.dflt());
            } else {
                String state = STATE.choice(f);
                fraction = FRACTION.number(f).orElse(state.equals("down") ? 0.0 : 0.5);
                if (state.equals("down") && given(f, "fraction")) {
                    f.error("fraction", "a link that is down carries nothing; give state: degraded to keep a fraction");
                }
                if (state.equals("degraded") && !(fraction > 0)) {
                    f.error("fraction", "found " + fraction + ", expected a fraction above 0 (use state: down for 0)");
                }
                if (state.equals("down")) {
                    fraction = 0;
                }
                extra = EXTRA_LATENCY.number(f).map(us -> Math.round(us * 1000)).orElse(0L);
            }
            f.finish();
            double c = fraction;
            double sp = speed;
            long x = extra;
            name.ifPresent(n -> out.add(new Fault(target, n, at, duration, c, x, sp, f.locationOf(key),
                    path + "." + key)));
        }
        return out;
    }
}
