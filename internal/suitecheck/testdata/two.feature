Feature: two

  @R2.1
  Scenario: first
    Given nothing

  @R4.2 @slow
  Scenario Outline: outline <n>
    Given <n>

    Examples:
      | n |
      | 1 |
      | 2 |
