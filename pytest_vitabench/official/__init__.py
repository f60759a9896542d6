"""Everything about the official VitaBench 2.0 harness, in one place.

The project ships none of the official text: every word is read at run time from the user's copy of the harness.
What lives here re-implements how the official harness composes and behaves, and is chosen by the profile:

* :mod:`.behaviour` - the one place where the run's style values become each component's typed rules;
* :mod:`.source` - finding and reading the user's copy (``--vita-official-source``);
* :mod:`.models` - its ``models.yaml`` (the request settings of each role);
* :mod:`.wording` - requests in its wording (prompts, records, judge windows); :mod:`.tool_schemas` - its tool
  schemas; :mod:`.messages` - its tools' messages;
* :mod:`.tool_answers` - the tools answering as the official ones: :mod:`.shared_tools`, :mod:`.delivery`,
  :mod:`.instore`, :mod:`.ota`, with the records' string forms of :mod:`.record_text`;
* :mod:`.rag` - the official rag memory; :mod:`.outcome` - the official outcome judge's inputs.

Components never import this package's domain modules: the run hands them their behaviour. Nothing is imported
here, so importing one module does not load the others.
"""
