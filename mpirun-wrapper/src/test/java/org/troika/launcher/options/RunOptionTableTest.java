package org.troika.launcher.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rows are the one declaration of the options: the README's flag table is theirs, every name is unique. */
class RunOptionTableTest {
    /** The README of the repository (the tests run in the module's folder). */
    private static final Path README = Path.of("..", "README.md");

    @Test
    void theReadmeFlagTableIsTheRows() throws IOException {
        List<String> readme = Files.readAllLines(README);
        int start = readme.indexOf("| flag | meaning |");
        assertTrue(start >= 0, "README.md has no '| flag | meaning |' table");
        List<String> table = new ArrayList<>();
        for (int i = start; i < readme.size() && readme.get(i).startsWith("|"); i++) {
            table.add(readme.get(i));
        }
        assertEquals(String.join("\n", RunOptionTable.markdown()), String.join("\n", table),
                "README.md's flag table differs from RunOptionTable's rows; paste RunOptionTable.markdown() there");
    }

    @Test
    void eachNameIsOneRowsAndEveryRowIsDocumented() {
        Set<String> names = new HashSet<>();
        for (RunOption<?> row : RunOptionTable.ALL) {
            for (String name : row.names()) {
                assertTrue(names.add(name), name + " names two rows");
                assertTrue(name.matches("--?[a-z][a-z0-9-]*|-[A-Za-z]"), "odd option name " + name);
            }
            assertFalse(row.help().isBlank(), row + " has no help");
            assertNotNull(row.key(), row.toString());
        }
        assertEquals(RunOptionTable.ALL.size(), RunOptionTable.markdown().size() - 2);
    }
}
