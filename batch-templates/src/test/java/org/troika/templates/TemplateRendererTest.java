package org.troika.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateRendererTest {
    @Test
    void replacesPlaceholdersAndHonoursLineConditions() {
        String t = "a={{a}}\n{{?b}}b={{b}}\n{{!b}}no b\n{{?c}}c\nend\n";
        assertEquals("a=1\nb=2\nend\n", TemplateRenderer.render(t, Map.of("a", "1", "b", "2", "c", "")));
        assertEquals("a=1\nno b\nend\n", TemplateRenderer.render(t, Map.of("a", "1")));
    }

    @Test
    void valuesAreInsertedLiterally() {
        assertEquals("x=$1 \\n {{y}}", TemplateRenderer.render("x={{x}}", Map.of("x", "$1 \\n {{y}}")));
    }

    @Test
    void unknownPlaceholderIsABug() {
        assertThrows(IllegalStateException.class, () -> TemplateRenderer.render("{{nope}}", Map.of()));
    }

    @Test
    void everySystemHasATemplate() {
        for (String s : TemplateCommand.SYSTEMS) {
            assertEquals("#!/bin/bash", TemplateRenderer.load(s).lines().findFirst().orElseThrow());
        }
        assertThrows(IllegalArgumentException.class, () -> TemplateRenderer.load("sge"));
    }
}
