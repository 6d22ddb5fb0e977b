package org.clustersim.cli.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The study package is to become a module of its own below the command line: it may import
 * sim-topology, sim-core, sim-strategies and {@code cli.scenario}, never the rest of the CLI
 * (commands, output, report, what-if, plan) or picocli.
 */
class StudyImportsTest {
    private static final Pattern IMPORT = Pattern.compile("^import (static )?([\\w.]+)", Pattern.MULTILINE);

    @Test
    void theStudyPackageImportsNothingOfTheCommandLine() throws IOException {
        Path dir = Path.of("src", "main", "java", "org", "clustersim", "cli", "study");
        List<String> bad = new ArrayList<>();
        int files = 0;
        try (Stream<Path> list = Files.list(dir)) {
            for (Path f : list.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String name = m.group(2);
                    boolean cli = name.startsWith("org.clustersim.cli.") && !name.startsWith("org.clustersim.cli.scenario.")
                            && !name.startsWith("org.clustersim.cli.study.");
                    if (cli || name.startsWith("picocli.")) {
                        bad.add(f.getFileName() + ": " + name);
                    }
                }
            }
        }
        assertTrue(files >= 2, "the study package's sources are where this test looks: " + dir.toAbsolutePath());
        assertEquals(List.of(), bad);
    }
}
