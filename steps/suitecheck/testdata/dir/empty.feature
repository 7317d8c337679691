Feature: empty
