package org.clustersim.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jgrapht.Graph;
import org.jgrapht.GraphPath;
import org.jgrapht.alg.connectivity.KosarajuStrongConnectivityInspector;
import org.jgrapht.alg.shortestpath.BFSShortestPath;
import org.jgrapht.graph.AsSubgraph;
import org.jgrapht.graph.DefaultDirectedGraph;
import org.jgrapht.graph.DefaultEdge;

/**
 * Which Java package uses which, read from source text (no compiled classes needed, so it sees
 * every module at once): a file's {@code package} line, and every qualified name in its code
 * (imports, static imports, wildcard imports, fully qualified references such as
 * {@code org.clustersim.study.engine.Progress.silent()}) that starts with a package some source
 * file declares. Comments, string and character literals and text blocks are skipped, so a
 * {@code {@link ...}} or a message naming a class is no dependency. Same-package references need
 * no qualification in Java and are no edge anyway.
 */
final class PackageGraph {
    private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
    private static final Pattern QUALIFIED = Pattern.compile("\\b[a-z_][\\w]*(?:\\s*\\.\\s*[a-z_][\\w]*)+");

    /** from package -> to package -> the files (simple names) that make the edge. */
    private final Map<String, Map<String, Set<String>>> uses = new TreeMap<>();
    private final Graph<String, DefaultEdge> graph = new DefaultDirectedGraph<>(DefaultEdge.class);

    private PackageGraph() {
    }

    /** The graph of every {@code .java} file under the given source roots. */
    static PackageGraph ofSourceRoots(List<Path> roots) {
        Map<String, String> sources = new TreeMap<>();
        for (Path root : roots) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    sources.put(root.relativize(f).toString(), Files.readString(f, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return of(sources);
    }

    /** The graph of the given sources, file name to text. */
    static PackageGraph of(Map<String, String> sources) {
        PackageGraph g = new PackageGraph();
        Map<String, String> code = new TreeMap<>();
        Map<String, String> packageOf = new TreeMap<>();
        for (var e : sources.entrySet()) {
            String text = code(e.getValue());
            Matcher m = PACKAGE.matcher(text);
            String pkg = m.find() ? m.group(1) : "";
            code.put(e.getKey(), text);
            packageOf.put(e.getKey(), pkg);
            g.graph.addVertex(pkg);
        }
        Set<String> packages = g.graph.vertexSet();
        for (var e : code.entrySet()) {
            String from = packageOf.get(e.getKey());
            String name = Path.of(e.getKey()).getFileName().toString();
            Matcher m = QUALIFIED.matcher(e.getValue());
            while (m.find()) {
                String to = longestPackagePrefix(m.group().replaceAll("\\s+", ""), packages);
                if (to != null && !to.equals(from)) {
                    g.graph.addEdge(from, to);
                    g.uses.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>())
                            .add(name);
                }
            }
        }
        return g;
    }

    Set<String> packages() {
        return graph.vertexSet();
    }

    /** Whether {@code from} uses {@code to}. */
    boolean uses(String from, String to) {
        return graph.containsEdge(from, to);
    }

    /**
     * One line per package cycle: the packages of a strongly connected component, one cycle
     * through them with the files that make each step, and every other edge inside it. Empty
     * when the packages form a DAG.
     */
    List<String> cycles() {
        List<String> found = new ArrayList<>();
        for (Set<String> component : new KosarajuStrongConnectivityInspector<>(graph).stronglyConnectedSets()) {
            if (component.size() < 2) {
                continue;
            }
            Graph<String, DefaultEdge> inside = new AsSubgraph<>(graph, component);
            String first = new TreeSet<>(component).first();
            String next = new TreeSet<>(uses.get(first).keySet()).stream().filter(component::contains)
                    .findFirst().orElseThrow();
            GraphPath<String, DefaultEdge> back = BFSShortestPath.findPathBetween(inside, next, first);
            List<String> cycle = new ArrayList<>();
            cycle.add(first);
            cycle.addAll(back.getVertexList());
            StringBuilder line = new StringBuilder("cycle ");
            for (int i = 0; i + 1 < cycle.size(); i++) {
                line.append(cycle.get(i)).append(" -(").append(String.join(", ", uses.get(cycle.get(i))
                        .get(cycle.get(i + 1)))).append(")-> ");
            }
            line.append(first).append("; all edges among ").append(new TreeSet<>(component)).append(": ");
            line.append(new TreeSet<>(component).stream()
                    .flatMap(a -> uses.getOrDefault(a, Map.of()).entrySet().stream()
                            .filter(to -> component.contains(to.getKey()))
                            .map(to -> a + " -> " + to.getKey() + " " + to.getValue()))
                    .collect(Collectors.joining("; ")));
            found.add(line.toString());
        }
        found.sort(null);
        return found;
    }

    private static String longestPackagePrefix(String name, Set<String> packages) {
        String candidate = name;
        while (true) {
            if (packages.contains(candidate)) {
                return candidate;
            }
            int dot = candidate.lastIndexOf('.');
            if (dot < 0) {
                return null;
            }
            candidate = candidate.substring(0, dot);
        }
    }

    /**
     * The code of a Java source, with comments blanked and the contents of string literals, text
     * blocks and character literals dropped (their quotes kept), line breaks kept.
     */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                out.append(' ');
                source.substring(i, end).chars().filter(ch -> ch == '\n').forEach(ch -> out.append('\n'));
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int j = i + 3;
                while (j < n && !source.startsWith("\"\"\"", j)) {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                out.append("\"\"");
                i = Math.min(n, j + 3);
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                out.append(c).append(c);
                i = Math.min(n, j + 1);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
