-- A sandbox's notes: what a sandbox file (docs/portable.md) says about the scenario it holds, kept
-- with the sandbox it was imported into and written again when that sandbox is exported.
alter table tenants add column notes text;
