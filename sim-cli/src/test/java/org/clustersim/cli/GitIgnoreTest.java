package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * What the commands write by default stays out of git (issue 34, item 7: {@code plans/} and
 * {@code *.pftrace} showed up as untracked files after a first plan and a Perfetto trace). The
 * repository's .gitignore is read with its patterns as globs: enough for the patterns it holds
 * (a leading slash anchors to the root, a trailing slash is a directory, a bare name matches at
 * any depth).
 */
class GitIgnoreTest {
    private static final Path GITIGNORE = Path.of("..", ".gitignore");

    @Test
    void theDefaultOutputsOfRunPlanAndReportAreIgnored() throws IOException {
        List<String> patterns = Files.readAllLines(GITIGNORE).stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#") && !l.startsWith("!")).toList();
        for (String output : List.of("plans/gpt3-1.3b-8gpus-gb16-s1024.csv", "plans/x.winner.yaml",
                "traces/gpt3-175b-pp8-1f1b.pftrace", "traces/gpt3-175b-pp8-1f1b.json", "run.pftrace",
                "out/x.perfetto-trace", "reports/gpt3-175b-pp8-1f1b.html")) {
            assertTrue(patterns.stream().anyMatch(p -> ignores(p, output)), output + " is not ignored by " + patterns);
        }
    }

    /** Whether the gitignore {@code pattern} ignores {@code path} (relative to the root, with slashes). */
    private static boolean ignores(String pattern, String path) {
        boolean anchored = pattern.startsWith("/") || pattern.substring(0, pattern.length() - 1).contains("/");
        String p = pattern.startsWith("/") ? pattern.substring(1) : pattern;
        if (p.endsWith("/")) {
            String dir = p.substring(0, p.length() - 1);
            String[] parts = path.split("/");
            for (int i = 0; i < parts.length - 1; i++) {
                if ((anchored ? i == 0 : true) && glob(dir).matches(Path.of(parts[i]))) {
                    return true;
                }
            }
            return false;
        }
        if (anchored) {
            return glob(p).matches(Path.of(path));
        }
        return glob(p).matches(Path.of(path).getFileName());
    }

    private static java.nio.file.PathMatcher glob(String g) {
        return FileSystems.getDefault().getPathMatcher("glob:" + g);
    }
}
