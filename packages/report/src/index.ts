export { embedJson, renderReport, writeReport, type ReportInput, type ReportRun } from './render';
