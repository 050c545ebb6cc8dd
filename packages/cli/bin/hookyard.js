#!/usr/bin/env node
"use strict";
require("../dist/main.js").main(process.argv.slice(2));
