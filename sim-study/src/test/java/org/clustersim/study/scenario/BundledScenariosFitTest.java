package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.clustersim.study.plan.PeakMemory;
import org.junit.jupiter.api.Test;

/**
 * Every bundled scenario (scenarios/*.yaml and everything under scenarios/validation/) is a
 * layout that fits in its accelerator's HBM under the memory model ({@link PeakMemory}, the
 * peak predicted without simulating: the least the schedule holds, which {@code run} can exceed by up
 * to a microbatch's activations), so that a newcomer's first numbers come from layouts that
 * can run. The only exceptions are illustrations that do not fit on purpose: their header
 * comment says so in those words ({@value #ILLUSTRATION}) and they set
 * {@code simulation.allowOom}. A layout that fits may neither set {@code allowOom} nor carry that
 * header, so neither can go stale. And each scenario at the top of scenarios/ either names the
 * published run whose layout it is (a header line {@value #SOURCE}) or says it is an illustration
 * (the validation rows below it are published runs by definition, docs/validation-sources.md).
 */
class BundledScenariosFitTest {
    /** What the header comment of a scenario that does not fit on purpose must say. */
    static final String ILLUSTRATION = "an illustration that does not fit";

    /** How the header of a bundled scenario that is a published run's layout names that run. */
    static final String SOURCE = "Source:";

    private static final Path SCENARIOS = Path.of("..", "scenarios");

    @Test
    void everyBundledScenarioFitsOrSaysItIsAnIllustration() throws IOException {
        List<Path> files = scenarioFiles();
        assertTrue(files.size() > 90, "found only " + files.size() + " bundled scenarios under " + SCENARIOS);
        List<String> wrong = new ArrayList<>();
        ScenarioReader reader = new ScenarioReader();
        for (Path f : files) {
            Scenario s = reader.read(f);
            PeakMemory.Peak peak = PeakMemory.of(s.trainingStep());
            long hbm = s.cluster().accelerator().hbmBytes();
            boolean fits = peak.peakBytes() <= hbm;
            boolean illustration = header(f).toLowerCase(Locale.ROOT).contains(ILLUSTRATION);
            String at = SCENARIOS.relativize(f) + ": " + PeakMemory.describe(peak, hbm);
            if (!fits && !illustration) {
                wrong.add(at + "; does not fit, and its header does not say it is " + ILLUSTRATION);
            } else if (!fits && !s.allowOom()) {
                wrong.add(at + "; an illustration over HBM without simulation.allowOom");
            } else if (fits && illustration) {
                wrong.add(at + "; fits, yet its header says it is " + ILLUSTRATION);
            } else if (fits && s.allowOom()) {
                wrong.add(at + "; fits, yet sets simulation.allowOom");
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + files.size() + " bundled scenarios:\n"
                + String.join("\n", wrong));
    }

    @Test
    void everyTopLevelScenarioNamesItsPublishedRunOrSaysItIsAnIllustration() throws IOException {
        List<String> wrong = new ArrayList<>();
        List<Path> files = scenarioFiles().stream().filter(f -> f.getParent().equals(SCENARIOS)).toList();
        assertTrue(files.size() > 10, "found only " + files.size() + " scenarios in " + SCENARIOS);
        for (Path f : files) {
            boolean source = headerLines(f).stream().anyMatch(l -> l.startsWith(SOURCE + " "));
            boolean illustration = header(f).toLowerCase(Locale.ROOT).contains("illustration");
            if (source == illustration) {
                wrong.add(SCENARIOS.relativize(f) + (source ? ": names a source and says it is an illustration"
                        : ": its header neither names its published run (a line '" + SOURCE + " ...') nor says it is "
                        + "an illustration"));
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** The comment lines at the top of the file, before the first field, without their '#'. */
    private static List<String> headerLines(Path f) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(f)) {
            if (!line.startsWith("#")) {
                break;
            }
            lines.add(line.substring(1).strip());
        }
        return lines;
    }

    /** The header comment as one line of text, so that a phrase may run over a line break. */
    private static String header(Path f) throws IOException {
        return String.join(" ", headerLines(f));
    }

    private static List<Path> scenarioFiles() throws IOException {
        try (Stream<Path> s = Files.walk(SCENARIOS)) {
            return s.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> p.getParent().equals(SCENARIOS) || p.startsWith(SCENARIOS.resolve("validation")))
                    .sorted()
                    .toList();
        }
    }
}
