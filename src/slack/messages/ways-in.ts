/** The ways in besides an upload: the message shortcut, an @mention, the Workflow step. */
export const waysInEn = {
  // The message shortcut (said to the person alone, through the payload's response_url).
  "shortcut.no_recording":
    "There is no recording in that message. Use Make meeting notes on a message with an audio or video file, or type /meeting-notes.",
  "shortcut.not_in_channel":
    "I am not in this channel, so I cannot read that recording. Invite me (/invite @Meeting Notes) and try again.",
  "new_notes.message_recording_label": "Recording from the message",
  "new_notes.destination_thread_hint":
    "Keep this channel and the notes go in the thread of that message.",

  // An @mention in a thread (said to the person alone).
  "mention.pending": "The notes will start in this thread as soon as my storage is working again.",
  "mention.history_busy":
    "I cannot look at this thread's first message for a minute (Slack allows me few reads of message history): mention me again in a minute, or use Make meeting notes on the recording's message.",
  "new_notes.recent_busy":
    "Recent recordings cannot be listed for a minute (Slack allows me few reads of message history): upload the recording here, or try again in a minute.",
  "usage.intro": "Here is how to get meeting notes from me:",
  "usage.upload":
    "Upload a recording to a channel I am in (where automatic notes are on), or send it to me in a direct message.",
  "usage.mention":
    "Mention me (@Meeting Notes) in the thread of a recording, or in the message you upload it with.",
  "usage.shortcut":
    "On a message with a recording, choose Make meeting notes in its menu (More actions).",
  "usage.command": "Type /meeting-notes to choose a recording and where the notes go.",

  // The Workflow step's failures, in its activity; once its job starts, its thread says the rest.
  "step.inputs":
    "This step needs a recording file, a channel to post the notes in and the person who used the workflow.",
  "step.recording_unreadable":
    "I cannot open that recording: it was deleted, or it is shared nowhere I am, so share it in a channel I am in and run the workflow again.",
  "step.not_a_recording": "{file} is not a recording I can use: the step takes {formats}.",
  "step.recording_not_theirs":
    "The recording must be one the person who used this workflow uploaded, or one shared in a conversation they are in.",
  "step.bot_not_in":
    "I am not in the channel to post the notes in: invite me there (/invite @Meeting Notes), or choose another channel in the step.",
  "step.user_not_in":
    "The person who used this workflow is not in the channel to post the notes in, so they could not name the speakers there.",
  "step.channel_unknown":
    "I could not check the channel to post the notes in; run the workflow again in a moment.",
  "step.thread_failed": "I could not post in the channel to post the notes in.",
  "step.already": "Notes for this recording are already being made in that channel.",
  "step.store_unavailable":
    "My storage is not working right now, so no notes were started; run the workflow again later.",
  "step.no_link":
    "The notes are being made in the channel you chose, but Slack gave me no link to their thread.",
} as const;

export const waysInVi: { readonly [K in keyof typeof waysInEn]: string } = {
  "shortcut.no_recording":
    "Tin nhắn đó không có bản ghi âm nào. Hãy dùng Make meeting notes trên một tin nhắn có tệp âm thanh hoặc video, hoặc gõ /meeting-notes.",
  "shortcut.not_in_channel":
    "Tôi chưa ở trong kênh này nên không đọc được bản ghi âm đó. Hãy mời tôi vào (/invite @Meeting Notes) rồi thử lại.",
  "new_notes.message_recording_label": "Bản ghi âm trong tin nhắn",
  "new_notes.destination_thread_hint":
    "Giữ nguyên kênh này thì biên bản sẽ được đăng trong luồng của tin nhắn đó.",

  "mention.pending":
    "Biên bản sẽ bắt đầu trong luồng này ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "mention.history_busy":
    "Trong một phút nữa tôi mới xem được tin nhắn đầu tiên của luồng này (Slack chỉ cho tôi đọc lịch sử tin nhắn ít lần): hãy nhắc đến tôi lại sau một phút, hoặc dùng Make meeting notes trên tin nhắn có bản ghi âm.",
  "new_notes.recent_busy":
    "Trong một phút nữa mới liệt kê được các bản ghi âm gần đây (Slack chỉ cho tôi đọc lịch sử tin nhắn ít lần): hãy tải bản ghi âm lên tại đây, hoặc thử lại sau một phút.",
  "usage.intro": "Đây là cách nhận biên bản cuộc họp từ tôi:",
  "usage.upload":
    "Tải một bản ghi âm lên kênh có tôi (nơi bật tự động tạo biên bản), hoặc gửi cho tôi trong tin nhắn trực tiếp.",
  "usage.mention":
    "Nhắc đến tôi (@Meeting Notes) trong luồng của một bản ghi âm, hoặc trong tin nhắn bạn tải bản ghi âm lên.",
  "usage.shortcut":
    "Trên một tin nhắn có bản ghi âm, chọn Make meeting notes trong menu của tin nhắn (Thêm thao tác).",
  "usage.command": "Gõ /meeting-notes để chọn bản ghi âm và nơi đăng biên bản.",

  "step.inputs":
    "Bước này cần một tệp bản ghi âm, một kênh để đăng biên bản và người đã dùng quy trình.",
  "step.recording_unreadable":
    "Tôi không mở được bản ghi âm đó: nó đã bị xóa, hoặc chưa được chia sẻ ở nơi nào có tôi, nên hãy chia sẻ nó trong một kênh có tôi rồi chạy lại quy trình.",
  "step.not_a_recording": "{file} không phải bản ghi âm tôi dùng được: bước này nhận {formats}.",
  "step.recording_not_theirs":
    "Bản ghi âm phải do người dùng quy trình này tải lên, hoặc được chia sẻ trong một cuộc trò chuyện có họ.",
  "step.bot_not_in":
    "Tôi chưa ở trong kênh để đăng biên bản: hãy mời tôi vào (/invite @Meeting Notes), hoặc chọn kênh khác trong bước này.",
  "step.user_not_in":
    "Người dùng quy trình này không ở trong kênh để đăng biên bản, nên họ không thể đặt tên người nói ở đó.",
  "step.channel_unknown":
    "Tôi không kiểm tra được kênh để đăng biên bản; hãy chạy lại quy trình sau giây lát.",
  "step.thread_failed": "Tôi không đăng được vào kênh để đăng biên bản.",
  "step.already": "Biên bản cho bản ghi âm này đang được tạo trong kênh đó.",
  "step.store_unavailable":
    "Bộ lưu trữ của tôi đang không hoạt động nên chưa tạo biên bản nào; hãy chạy lại quy trình sau.",
  "step.no_link":
    "Biên bản đang được tạo trong kênh bạn chọn, nhưng Slack không cho tôi liên kết đến luồng của nó.",
};
