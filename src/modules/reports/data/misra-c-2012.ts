/**
 * The rule groups of MISRA C:2012: rule `x.y` belongs to group `x`. The report counts findings
 * per group, named after the section of the guidelines that holds its rules.
 */
export const MISRA_C_2012_GROUPS: ReadonlyArray<{ group: number; title: string }> = [
  { group: 1, title: "A standard C environment" },
  { group: 2, title: "Unused code" },
  { group: 3, title: "Comments" },
  { group: 4, title: "Character sets and lexical conventions" },
  { group: 5, title: "Identifiers" },
  { group: 6, title: "Types" },
  { group: 7, title: "Literals and constants" },
  { group: 8, title: "Declarations and definitions" },
  { group: 9, title: "Initialization" },
  { group: 10, title: "The essential type model" },
  { group: 11, title: "Pointer type conversions" },
  { group: 12, title: "Expressions" },
  { group: 13, title: "Side effects" },
  { group: 14, title: "Control statement expressions" },
  { group: 15, title: "Control flow" },
  { group: 16, title: "Switch statements" },
  { group: 17, title: "Functions" },
  { group: 18, title: "Pointers and arrays" },
  { group: 19, title: "Overlapping storage" },
  { group: 20, title: "Preprocessing directives" },
  { group: 21, title: "Standard libraries" },
  { group: 22, title: "Resources" },
];
